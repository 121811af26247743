package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/agentlab/agentlab/eval"
)

// evalListAll is the largest evaluation whose passing cases are listed one
// line each without --verbose; a larger one reports them in progress
// lines, so that a 10,000-question suite does not print 10,000 lines.
const evalListAll = 50

// evalPlainEvery is how often a progress line is printed when stderr is
// not a terminal (or CI is set).
const evalPlainEvery = 10 * time.Second

// evalProgress reports an evaluation's cases on stderr. A failing case
// always gets its line; a passing one when the evaluation is small or
// with --verbose. On a terminal (not CI, TERM not dumb) a status line at
// the bottom is redrawn five times a second: cases done of those to run,
// how many passed, the time so far and the estimated time left.
// Otherwise a plain line with the same facts is printed every
// evalPlainEvery and when the last case is done.
type evalProgress struct {
	w       io.Writer
	live    bool
	verbose bool
	now     func() time.Time

	mu        sync.Mutex
	total     int
	done      int
	passed    int
	start     time.Time
	lastPlain time.Time
	drawn     bool
	stop      chan struct{}
	stopped   chan struct{}
}

func newEvalProgress(w io.Writer, verbose bool) *evalProgress {
	ci := os.Getenv("CI") == "true" || os.Getenv("CI") == "1"
	live := !ci && os.Getenv("TERM") != "dumb" && term.IsTerminal(int(os.Stderr.Fd()))
	return &evalProgress{w: w, live: live, verbose: verbose, now: time.Now}
}

// begin is called with the number of cases this attempt runs.
func (p *evalProgress) begin(total int) {
	p.mu.Lock()
	p.total, p.start, p.lastPlain = total, p.now(), p.now()
	p.mu.Unlock()
	if p.live && total > 0 {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go func() {
			defer close(p.stopped)
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				}
			}
		}()
	}
}

// finished reports one case (called serially, as cases finish).
func (p *evalProgress) finished(c eval.CaseResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if c.Pass {
		p.passed++
	}
	if !c.Pass || p.verbose || p.total <= evalListAll {
		p.clear()
		mark := "ok  "
		if !c.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(p.w, "%s %s [%s #%d] %.0f ms\n", mark, c.Question, c.Variant, c.Repeat+1, c.Millis)
		if p.verbose {
			evalCaseDetail(p.w, c)
		}
	}
	if p.live {
		p.draw()
		return
	}
	if p.total > evalListAll && !p.verbose && (p.done == p.total || p.now().Sub(p.lastPlain) >= evalPlainEvery) {
		p.lastPlain = p.now()
		fmt.Fprintf(p.w, "eval: %s\n", p.status())
	}
}

// end stops the live line and leaves the last status on its own line.
func (p *evalProgress) end() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.clear()
		fmt.Fprintf(p.w, "eval: %s\n", p.status())
		p.drawn = false
	}
}

// status is "412/1000 cases, 409 passed (99.3%), 4.1 s, about 5.8 s left".
func (p *evalProgress) status() string {
	el := p.now().Sub(p.start)
	s := fmt.Sprintf("%d/%d cases, %d passed", p.done, p.total, p.passed)
	if p.done > 0 {
		s += fmt.Sprintf(" (%.1f%%)", 100*float64(p.passed)/float64(p.done))
	}
	s += fmt.Sprintf(", %s", el.Round(100*time.Millisecond))
	if p.done > 0 && p.done < p.total {
		left := time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))
		s += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	return s
}

// draw rewrites the live status line; clear erases it. p.mu is held.
func (p *evalProgress) draw() {
	if !p.live || p.total == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", p.status())
	p.drawn = true
}

func (p *evalProgress) clear() {
	if p.live && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
