package evidence

import (
	"fmt"
	"strconv"
	"sync"
)

// Entry kinds.
const (
	KindQuery     = "query"     // a query snapshot, numbered Q1, Q2, …
	KindKnowledge = "knowledge" // a retrieval hit, numbered K1, K2, …
)

// Entry is one numbered piece of evidence and the artifact (b3:…) that holds it.
type Entry struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Artifact string `json:"artifact"`
}

// Ledger numbers the evidence of one run. Numbers follow the order of
// registration, so a scheduler that registers in a deterministic order
// gets the same numbers on every machine. It is safe for concurrent use.
type Ledger struct {
	mu      sync.Mutex
	entries []Entry
	index   map[string]int
	queries int
	knows   int
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{index: map[string]int{}} }

// RestoreLedger rebuilds a ledger from the entries of an earlier, interrupted
// attempt of the same run, so that resuming continues the numbering. The
// entries must be in the order they were numbered.
func RestoreLedger(entries []Entry) (*Ledger, error) {
	l := NewLedger()
	for _, e := range entries {
		var want string
		switch e.Kind {
		case KindQuery:
			want = "Q" + strconv.Itoa(l.queries+1)
		case KindKnowledge:
			want = "K" + strconv.Itoa(l.knows+1)
		default:
			return nil, fmt.Errorf("ledger: entry %q has unknown kind %q", e.ID, e.Kind)
		}
		if e.ID != want {
			return nil, fmt.Errorf("ledger: entry %q is out of order (expected %s)", e.ID, want)
		}
		l.add(e.Kind, e.Artifact)
	}
	return l, nil
}

// AddQuery registers a stored query snapshot and returns its number (Q…).
func (l *Ledger) AddQuery(artifact string) string { return l.locked(KindQuery, artifact) }

// AddKnowledge registers a stored knowledge hit and returns its number (K…).
func (l *Ledger) AddKnowledge(artifact string) string { return l.locked(KindKnowledge, artifact) }

// AddSnapshot numbers s, writes the number into it, stores its canonical
// bytes with put and registers the artifact put returns. Because the number
// is part of the stored bytes, numbering and storing happen under one lock:
// two concurrent calls can never swap numbers between their artifacts. On
// error the number is not used.
func (l *Ledger) AddSnapshot(s *Snapshot, put func(canonical []byte) (artifact string, err error)) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s.ID = "Q" + strconv.Itoa(l.queries+1)
	b, err := s.Canonical()
	if err != nil {
		return "", err
	}
	art, err := put(b)
	if err != nil {
		return "", err
	}
	return l.add(KindQuery, art), nil
}

func (l *Ledger) locked(kind, artifact string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.add(kind, artifact)
}

func (l *Ledger) add(kind, artifact string) string {
	var id string
	if kind == KindQuery {
		l.queries++
		id = "Q" + strconv.Itoa(l.queries)
	} else {
		l.knows++
		id = "K" + strconv.Itoa(l.knows)
	}
	if l.index == nil {
		l.index = map[string]int{}
	}
	l.index[id] = len(l.entries)
	l.entries = append(l.entries, Entry{ID: id, Kind: kind, Artifact: artifact})
	return id
}

// Entries returns a copy of every entry in registration order.
func (l *Ledger) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Entry, len(l.entries))
	copy(out, l.entries)
	return out
}

// Lookup finds an entry by its number (Q3, K1).
func (l *Ledger) Lookup(id string) (Entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.index[id]
	if !ok {
		return Entry{}, false
	}
	return l.entries[i], true
}
