package main

import (
	"fmt"
	"io"
)

// tally counts the outcomes of a run and keeps the survivors.
type tally struct {
	killed, timedOut, survived, unviable int
	survivors                            []mutant
}

func (t *tally) add(m mutant, r result) {
	switch r.outcome {
	case killed:
		t.killed++
	case timedOut:
		t.timedOut++
	case survived, flaky:
		t.survived++
		t.survivors = append(t.survivors, m)
	case unviable:
		t.unviable++
	}
}

// viable is the number of mutants that compiled and were tested.
func (t *tally) viable() int { return t.killed + t.timedOut + t.survived }

// score is the killed share of the viable mutants, in percent.
func (t *tally) score() float64 {
	if t.viable() == 0 {
		return 0
	}
	return 100 * float64(t.killed+t.timedOut) / float64(t.viable())
}

func (t *tally) print(w io.Writer, root, pkg string, seed uint64) {
	fmt.Fprintf(w, "\n%s: %d mutants tested (%d more did not compile), %d killed (%d by timeout), %d survived\n",
		pkg, t.viable(), t.unviable, t.killed+t.timedOut, t.timedOut, t.survived)
	for _, m := range t.survivors {
		fmt.Fprintf(w, "  survivor %s %s\n", m.where(root), m.describe())
	}
	fmt.Fprintf(w, "SCORE %s %.1f%% (%d/%d) seed %d\n", pkg, t.score(), t.killed+t.timedOut, t.viable(), seed)
}
