package chain

import (
	"fmt"
	"time"

	"github.com/agentlab/agentlab/hashid"
)

// Problem is one defect found by VerifyChain, located by the seq of the
// event (or, for a missing event, the seq that was expected).
type Problem struct {
	Seq     int64  `json:"seq"`
	Message string `json:"message"`
}

func (p Problem) String() string { return fmt.Sprintf("event %d: %s", p.Seq, p.Message) }

// VerifyChain checks events as they appear in the log of run runID and
// returns every defect, in log order (nil when the chain is intact):
//
//   - seq must be 1 for the first event and one more than the previous
//     event's seq afterwards (a deleted event shows as a gap, a moved or
//     inserted one as out of order);
//   - prev must equal the stored hash of the preceding event in the log
//     (Genesis(runID) for the first), so a removed or inserted event breaks
//     the link at the event after it;
//   - hash must equal ComputeHash, so an edited field is caught at the
//     edited event itself;
//   - time must be in TimeLayout and type must be non-empty.
//
// Links are checked against the stored hash of the previous line, not a
// recomputed one, so one edited event is reported once, at its own seq,
// instead of at every later event.
func VerifyChain(runID string, events []Event) []Problem {
	l := NewLinker(runID)
	var ps []Problem
	for _, e := range events {
		ps = l.Next(e, ps)
	}
	return ps
}

// Linker checks a chain one event at a time, for a reader that does not
// keep the whole log: the checks of VerifyChain, in the same order with
// the same messages.
type Linker struct {
	runID    string
	prevHash string
	prevSeq  int64
	first    bool
}

// NewLinker starts a chain of run runID.
func NewLinker(runID string) *Linker {
	return &Linker{runID: runID, prevHash: Genesis(runID).String(), first: true}
}

// Next checks e as the event after the ones given so far and appends its
// problems to ps.
func (l *Linker) Next(e Event, ps []Problem) []Problem { return l.next(e, ps, Event.ComputeHash) }

// NextCanonical is Next for an event whose data is known to be canonical
// already (ReadCanonicalLine read it): its hash is taken without
// canonicalising the data again.
func (l *Linker) NextCanonical(e Event, ps []Problem) []Problem {
	return l.next(e, ps, Event.hashCanonical)
}

func (l *Linker) next(e Event, ps []Problem, hash func(Event) (hashid.ID, error)) []Problem {
	add := func(seq int64, format string, args ...any) {
		ps = append(ps, Problem{Seq: seq, Message: fmt.Sprintf(format, args...)})
	}
	want := l.prevSeq + 1
	switch {
	case l.first && e.Seq != 1:
		add(e.Seq, "first event has seq %d, want 1 (events before it are missing)", e.Seq)
	case e.Seq == want:
	case e.Seq > want:
		if e.Seq == want+1 {
			add(want, "missing: seq jumps from %d to %d", l.prevSeq, e.Seq)
		} else {
			add(want, "missing: seq jumps from %d to %d (events %d-%d absent)", l.prevSeq, e.Seq, want, e.Seq-1)
		}
	default:
		add(e.Seq, "out of order: seq %d follows seq %d", e.Seq, l.prevSeq)
	}
	if e.Prev != l.prevHash {
		if l.first {
			add(e.Seq, "broken link: prev is %s, want the genesis value %s of run %q", short(e.Prev), short(l.prevHash), l.runID)
		} else {
			add(e.Seq, "broken link: prev is %s, but the event before it (seq %d) has hash %s", short(e.Prev), l.prevSeq, short(l.prevHash))
		}
	}
	if e.Type == "" {
		add(e.Seq, "empty type")
	}
	if _, err := time.Parse(TimeLayout, e.Time); err != nil {
		add(e.Seq, "time %q is not RFC 3339 UTC with nine fractional digits", e.Time)
	}
	h, err := hash(e)
	switch {
	case err != nil:
		add(e.Seq, "cannot hash: %v", err)
	case h.String() != e.Hash:
		add(e.Seq, "bad hash: stored %s, content hashes to %s (the event was altered)", short(e.Hash), h.Short())
	}
	l.prevHash, l.prevSeq, l.first = e.Hash, e.Seq, false
	return ps
}

// short abbreviates a "b3:…" string for messages; anything else is quoted.
func short(s string) string {
	if id, err := hashid.Parse(s); err == nil {
		return id.Short()
	}
	return fmt.Sprintf("%q", s)
}
