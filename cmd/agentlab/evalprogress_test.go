package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/eval"
)

// TestEvalProgressPlainLines plays CI on a 1,000-case evaluation: no
// line per passing case, every failing case named, a status line every
// ten seconds and one at the end, with the pass rate and the time left.
func TestEvalProgressPlainLines(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(1700000000, 0)
	p := &evalProgress{w: &buf, now: func() time.Time { return clock }}
	p.begin(1000)
	for i := 0; i < 1000; i++ {
		clock = clock.Add(25 * time.Millisecond) // 25 s in all
		p.finished(eval.CaseResult{Question: fmt.Sprintf("q%d", i), Variant: "mock", Pass: i != 7})
	}
	p.end()
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if strings.Count(out, "ok  ") != 0 {
		t.Errorf("passing cases were listed one by one:\n%s", out)
	}
	if !strings.Contains(out, "FAIL q7 [mock #1]") {
		t.Errorf("the failing case is not named:\n%s", out)
	}
	// FAIL, then at 10 s and 20 s, then the end.
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), out)
	}
	if want := "eval: 400/1000 cases, 399 passed (99.8%), 10s, about 15s left"; lines[1] != want {
		t.Errorf("progress line %q, want %q", lines[1], want)
	}
	if want := "eval: 1000/1000 cases, 999 passed (99.9%), 25s"; lines[3] != want {
		t.Errorf("last line %q, want %q", lines[3], want)
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\r") {
		t.Errorf("terminal control characters outside a terminal: %q", out)
	}
}

// TestEvalProgressSmallSuiteListsEveryCase keeps the one-line-per-case
// report of a small evaluation.
func TestEvalProgressSmallSuiteListsEveryCase(t *testing.T) {
	var buf bytes.Buffer
	p := &evalProgress{w: &buf, now: time.Now}
	p.begin(3)
	for i := 0; i < 3; i++ {
		p.finished(eval.CaseResult{Question: fmt.Sprintf("q%d", i), Variant: "v", Pass: true, Millis: 12})
	}
	p.end()
	if want := "ok   q0 [v #1] 12 ms\nok   q1 [v #1] 12 ms\nok   q2 [v #1] 12 ms\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

// TestEvalProgressLiveLine checks the terminal view: the status line is
// redrawn in place, a failing case is printed above it after erasing it,
// and the last status stays on a line of its own.
func TestEvalProgressLiveLine(t *testing.T) {
	var buf bytes.Buffer
	p := &evalProgress{w: &buf, live: true, now: time.Now}
	p.total, p.start = 100, time.Now()
	p.finished(eval.CaseResult{Question: "a", Variant: "v", Pass: true})
	p.finished(eval.CaseResult{Question: "b", Variant: "v", Pass: false})
	p.end()
	out := buf.String()
	if !strings.HasPrefix(out, "\r\x1b[K1/100 cases, 1 passed (100.0%)") {
		t.Errorf("no status line first: %q", out)
	}
	if !strings.Contains(out, "\r\x1b[KFAIL b [v #1]") {
		t.Errorf("the failing case was not printed over an erased status line: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[Keval: 2/100 cases, 1 passed (50.0%)"+out[strings.LastIndex(out, "(50.0%)")+len("(50.0%)"):]) || !strings.HasSuffix(out, "\n") {
		t.Errorf("the last status does not end on its own line: %q", out)
	}
}
