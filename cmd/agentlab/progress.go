package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/redact"
)

// progress shows a run's node states on stderr. On a terminal (and not
// CI) it redraws a live view: one line per node with its state and elapsed
// time, and the tail of the tokens the running model nodes stream.
// Otherwise it prints one plain line per state change; tokens are not
// printed there, so logs stay readable and diffable. --quiet prints
// nothing; --verbose adds each node's type, time, tokens and cost to the
// plain lines and prints a detail (an error, a skip reason) in full rather
// than its first line.
type progress struct {
	w       io.Writer
	live    bool
	quiet   bool
	verbose bool

	mu     sync.Mutex
	nodes  map[string]*nodeView
	order  []string
	drawn  int // lines of the last live frame
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

type nodeView struct {
	id, typ, state, detail string
	start                  time.Time
	elapsed                time.Duration
	tokens                 strings.Builder
}

func newProgress(quiet bool) *progress {
	p := &progress{w: redact.Writer(os.Stderr), quiet: quiet, verbose: global.verbose && !quiet, nodes: map[string]*nodeView{}}
	ci := os.Getenv("CI") == "true" || os.Getenv("CI") == "1"
	// TERM=dumb cannot move the cursor or erase a line.
	p.live = !quiet && !ci && os.Getenv("TERM") != "dumb" && term.IsTerminal(int(os.Stderr.Fd()))
	if p.live {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.loop()
	}
	return p
}

// observe receives engine updates (from several goroutines).
func (p *progress) observe(u engine.Update) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.nodes[u.Node]
	if !ok {
		v = &nodeView{id: u.Node, typ: u.Type}
		p.nodes[u.Node] = v
		p.order = append(p.order, u.Node)
	}
	if u.Token != "" {
		v.tokens.WriteString(u.Token)
		return
	}
	if u.State == engine.StateRunning && v.state != engine.StateRunning {
		v.start = time.Now()
	}
	v.state, v.detail = u.State, u.Detail
	if u.Elapsed > 0 {
		v.elapsed = u.Elapsed
	}
	if !p.live {
		p.plain(v, u)
	}
}

func (p *progress) plain(v *nodeView, u engine.Update) {
	if p.verbose {
		p.plainVerbose(v, u)
		return
	}
	line := fmt.Sprintf("%-9s %s", v.state, v.id)
	switch {
	case u.Cached:
		line += " (restored)"
	case v.detail != "":
		line += ": " + firstLine(v.detail)
	case u.State == engine.StateFinished:
		line += " (" + roundDur(v.elapsed) + ")"
	}
	fmt.Fprintln(p.w, line)
}

// plainVerbose is the --verbose form of a plain line:
//
//	finished  draft (llm, 1.2s, 812/95 tokens, $0.0021)
//	failed    pull (tool, 30ms)
//	          E-SQL-EXEC: no such column: amout
func (p *progress) plainVerbose(v *nodeView, u engine.Update) {
	var facts []string
	if v.typ != "" {
		facts = append(facts, v.typ)
	}
	if u.Cached {
		facts = append(facts, "restored")
	}
	if d := roundDur(u.Elapsed); d != "" {
		facts = append(facts, d)
	}
	if us := u.Usage; us.InputTokens+us.OutputTokens > 0 {
		cost := fmt.Sprintf("$%.4f", us.CostUSD)
		if us.CostUnknown {
			cost += "+?" // no price for the model: not free, unknown
		}
		facts = append(facts, fmt.Sprintf("%d/%d tokens", us.InputTokens, us.OutputTokens), cost)
	}
	line := fmt.Sprintf("%-9s %s", v.state, v.id)
	if len(facts) > 0 {
		line += " (" + strings.Join(facts, ", ") + ")"
	}
	fmt.Fprintln(p.w, line)
	if v.detail != "" {
		for _, l := range strings.Split(strings.TrimRight(v.detail, "\n"), "\n") {
			fmt.Fprintln(p.w, "          "+l)
		}
	}
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(120 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// draw repaints the live frame in place (caller holds mu).
func (p *progress) draw() {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	width, rows := 100, 30
	if w, h, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 20 {
		width = w
		// A frame taller than the screen scrolls, and moving the cursor up
		// would then redraw over the wrong lines.
		if h > 2 && h-2 < rows {
			rows = h - 2
		}
	}
	ids := p.order
	if len(ids) > rows {
		ids = ids[len(ids)-rows:]
	}
	lines := 0
	for _, id := range ids {
		v := p.nodes[id]
		el := v.elapsed
		if v.state == engine.StateRunning {
			el = time.Since(v.start)
		}
		line := fmt.Sprintf("%s %-9s %-30s %7s", mark(v.state), v.state, v.id, roundDur(el))
		if v.state == engine.StateRunning && v.tokens.Len() > 0 {
			// Redacted before the tail is cut, and with an end that could be
			// the start of a secret hidden: a key streamed in pieces never
			// shows on the screen, whole or in part.
			line += "  " + tail(redact.Unfinished(strings.ReplaceAll(v.tokens.String(), "\n", " ")), width-len([]rune(line))-3)
		} else if v.detail != "" {
			line += "  " + firstLine(v.detail)
		}
		if r := []rune(line); len(r) > width-1 {
			line = string(r[:width-1])
		}
		b.WriteString("\x1b[2K" + line + "\n")
		lines++
	}
	p.drawn = lines
	io.WriteString(p.w, b.String())
}

// close stops the live view and leaves its last frame on screen.
func (p *progress) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	if p.live {
		close(p.stop)
		<-p.done
	}
}

func mark(state string) string {
	switch state {
	case engine.StateFinished:
		return "✓"
	case engine.StateFailed:
		return "✗"
	case engine.StateSkipped:
		return "-"
	case engine.StateRunning, engine.StateRetrying:
		return "…"
	case engine.StateWaiting:
		return "?"
	case engine.StateCancelled:
		return "✗"
	}
	return " "
}

func tail(s string, n int) string {
	if n <= 3 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func roundDur(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// summaryTable writes the end-of-run table: node, status, time, tokens, cost.
func summaryTable(w io.Writer, nodes []engine.NodeSummary) {
	if len(nodes) == 0 {
		return
	}
	t := newTable(w)
	t.Header("node", "type", "status", "time", "tokens", "cost")
	var in, out int
	var cost float64
	var unknown bool
	// A model without a price in [providers.prices] has an unknown cost:
	// "$0.0000" would read as free, so its cost is marked "+?".
	money := func(c float64, unk bool) string {
		if unk {
			return fmt.Sprintf("$%.4f+?", c)
		}
		return fmt.Sprintf("$%.4f", c)
	}
	for _, n := range nodes {
		st := n.Status
		if n.Cached {
			st += " (restored)"
		}
		tok, c := "", ""
		if u := n.Usage; u.InputTokens+u.OutputTokens > 0 {
			tok = fmt.Sprintf("%d/%d", u.InputTokens, u.OutputTokens)
			c = money(u.CostUSD, u.CostUnknown)
			in, out, cost = in+u.InputTokens, out+u.OutputTokens, cost+u.CostUSD
			unknown = unknown || u.CostUnknown
		}
		t.Append(n.Node, n.Type, st, roundDur(n.Elapsed), tok, c)
	}
	if in+out > 0 {
		t.Footer("total", "", "", "", fmt.Sprintf("%d/%d", in, out), money(cost, unknown))
	}
	t.Render()
}
