package permission

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Answer is a person's answer to a permission prompt.
type Answer int

const (
	AnswerNo         Answer = iota // refuse this call
	AnswerYes                      // allow this call
	AnswerAlways                   // allow, and remember this exact call
	AnswerDenyAlways               // refuse, and remember this exact call
)

func (a Answer) String() string {
	return [...]string{"no", "yes", "always", "deny always"}[a]
}

// Request is what a person is asked about.
type Request struct {
	Tool string
	Args json.RawMessage
	Why  string // why the call needs a person ("no rule matches", "rule 2 says ask", "the gate was unsure: …")
}

// Prompter asks a person. Implementations must be safe to call from
// several goroutines (parallel tool calls); only one question is shown
// at a time.
type Prompter interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// TTYPrompter asks on a terminal: it writes the question to Out and reads
// one line from In. It is built on io.Reader/io.Writer so that tests can
// drive it.
type TTYPrompter struct {
	mu      sync.Mutex
	in      *bufio.Reader
	out     io.Writer
	maxArgs int
}

// NewTTYPrompter returns a prompter reading answers from in.
func NewTTYPrompter(in io.Reader, out io.Writer) *TTYPrompter {
	return &TTYPrompter{in: bufio.NewReader(in), out: out, maxArgs: 400}
}

// ShowArgs renders a call's arguments for a person: every top-level
// argument on a line of its own, by name, its value as JSON (so control
// characters and terminal escapes show as \u001b, never act); a value
// longer than fold characters keeps its beginning and end with a marker
// saying how many characters are folded away in between. Nothing is left
// out silently: a padded first argument cannot push the others out of
// sight.
func ShowArgs(args json.RawMessage, fold int) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return "  arguments: " + foldText(compactJSON(args), fold) + "\n"
	}
	if len(m) == 0 {
		return "  arguments: none\n"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "  arguments (%d):\n", len(keys))
	for _, k := range keys {
		name, _ := json.Marshal(k)
		fmt.Fprintf(&b, "    %s: %s\n", strings.Trim(string(name), `"`), foldText(compactJSON(m[k]), fold))
	}
	return b.String()
}

// compactJSON is raw JSON without insignificant spaces. JSON escapes the
// C0 controls (ESC shows as \u001b); the C1 controls and the bidirectional
// overrides, which a terminal may obey, are escaped the same way.
func compactJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return strconv.QuoteToASCII(string(raw))
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	var out strings.Builder
	for _, r := range strings.TrimSpace(b.String()) {
		if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x61c {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// foldText keeps the first two thirds and the last third of fold
// characters of s and says how many are folded away between them.
func foldText(s string, fold int) string {
	r := []rune(s)
	if fold <= 0 || len(r) <= fold {
		return s
	}
	head, tail := fold*2/3, fold/3
	return fmt.Sprintf("%s …[%d characters folded; the whole value is what runs]… %s", string(r[:head]), len(r)-head-tail, string(r[len(r)-tail:]))
}

// parseAnswer reads one answer; ok is false for anything unrecognised.
func parseAnswer(line string) (Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return AnswerYes, true
	case "n", "no":
		return AnswerNo, true
	case "a", "always":
		return AnswerAlways, true
	case "d", "deny", "deny always":
		return AnswerDenyAlways, true
	}
	return AnswerNo, false
}

// Ask shows the call and waits for y/n/a/d. An unrecognised answer is
// asked again (three times at most); end of input, an error or a
// cancelled context count as no: nothing is ever approved by default.
func (p *TTYPrompter) Ask(ctx context.Context, req Request) (Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "\nagentlab: the tool %s wants to run (%s)\n%s", req.Tool, req.Why, ShowArgs(req.Args, p.maxArgs))
	for attempt := 0; attempt < 3; attempt++ {
		fmt.Fprint(p.out, "Allow? [y]es / [n]o / [a]lways / [d]eny always: ")
		line, err := p.readLine(ctx)
		if err != nil {
			fmt.Fprintln(p.out)
			if err == io.EOF {
				return AnswerNo, nil
			}
			return AnswerNo, err
		}
		if a, ok := parseAnswer(line); ok {
			return a, nil
		}
		fmt.Fprintf(p.out, "%q is not an answer; type y, n, a or d.\n", strings.TrimSpace(line))
	}
	return AnswerNo, nil
}

// readLine reads one line, giving up when ctx ends. The read itself
// cannot be interrupted; a line typed later is consumed by it and lost,
// which errs on the side of refusing.
func (p *TTYPrompter) readLine(ctx context.Context) (string, error) {
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := p.in.ReadString('\n')
		if err == io.EOF && s != "" {
			err = nil
		}
		ch <- res{s, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
