package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/olekukonko/tablewriter"
	"golang.org/x/term"

	"github.com/agentlab/agentlab/run/engine"
)

// progress shows a run's node states on stderr. On a terminal (and not
// CI) it redraws a live view: one line per node with its state and elapsed
// time, and the tail of the tokens the running model nodes stream.
// Otherwise it prints one plain line per state change; tokens are not
// printed there, so logs stay readable and diffable.
type progress struct {
	w     io.Writer
	live  bool
	quiet bool

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
	p := &progress{w: os.Stderr, quiet: quiet, nodes: map[string]*nodeView{}}
	ci := os.Getenv("CI") == "true" || os.Getenv("CI") == "1"
	p.live = !quiet && !ci && term.IsTerminal(int(os.Stderr.Fd()))
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
	width := 100
	if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 20 {
		width = w
	}
	ids := p.order
	if len(ids) > 30 {
		ids = ids[len(ids)-30:]
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
			line += "  " + tail(strings.ReplaceAll(v.tokens.String(), "\n", " "), width-len([]rune(line))-3)
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
	t := tablewriter.NewWriter(w)
	t.Header("node", "type", "status", "time", "tokens", "cost")
	var in, out int
	var cost float64
	for _, n := range nodes {
		st := n.Status
		if n.Cached {
			st += " (restored)"
		}
		tok, c := "", ""
		if u := n.Usage; u.InputTokens+u.OutputTokens > 0 {
			tok = fmt.Sprintf("%d/%d", u.InputTokens, u.OutputTokens)
			c = fmt.Sprintf("$%.4f", u.CostUSD)
			in, out, cost = in+u.InputTokens, out+u.OutputTokens, cost+u.CostUSD
		}
		t.Append(n.Node, n.Type, st, roundDur(n.Elapsed), tok, c)
	}
	if in+out > 0 {
		t.Footer("total", "", "", "", fmt.Sprintf("%d/%d", in, out), fmt.Sprintf("$%.4f", cost))
	}
	t.Render()
}
