package permission

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	args := string(req.Args)
	if len(args) > p.maxArgs {
		args = args[:p.maxArgs] + "…"
	}
	fmt.Fprintf(p.out, "\nagentlab: the tool %s wants to run (%s)\n  arguments: %s\n", req.Tool, req.Why, args)
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
