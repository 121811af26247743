package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
)

// Evidence event types. evidence.added registers one ledger entry (Q… or
// K…) with the artifact holding it; the entries of a run are written in
// ledger order, so that resume rebuilds the same ledger from them.
const (
	EvEvidenceAdded = "evidence.added"
	EvToolCalled    = "tool.called"
	EvToolResult    = "tool.result"
	EvNodeWarning   = "node.warning"
)

// SourceDB answers db_query__<source> tool calls with snapshots; package
// run/sources implements it.
type SourceDB interface {
	Call(ctx context.Context, tool string, args map[string]any, rowCap int) (*evidence.Snapshot, error)
}

// Evidence is what a report model call may cite: the metrics, snapshots,
// inputs and knowledge hits visible to the report node.
type Evidence struct {
	Metrics   []EvidenceMetric
	Snapshots []EvidenceSnapshot
	Inputs    []string
	Knowledge []EvidenceHit
}

// EvidenceMetric is one metric a report may cite as [[m:NAME]].
type EvidenceMetric struct {
	Name  string
	Value float64
	Unit  string
}

// EvidenceSnapshot is one snapshot a report may cite as [[v:Q1.r0.col]].
type EvidenceSnapshot struct {
	ID      string
	Node    string
	Columns []string
	Rows    int
}

// EvidenceHit is one knowledge hit a report may quote as [[q:K1|words]].
type EvidenceHit struct {
	ID   string
	Text string
}

// evState is the evidence a run has gathered: the ledger, and what the
// metrics, retrieve and output nodes produced, for later nodes to use.
type evState struct {
	mu      sync.Mutex
	ledger  *evidence.Ledger
	snaps   map[string]*evidence.Snapshot    // Q… → snapshot
	hits    map[string]evidence.KnowledgeHit // K… → hit
	metrics map[string]*evidence.MetricSet   // metrics node id → its set
	tiers   map[string]string                // output node id → issuance tier
	// unfinished is the evidence earlier attempts registered for nodes
	// that did not finish; see Unfinished.
	unfinished Unfinished
}

func (r *runner) evidence() *evState {
	r.evOnce.Do(func() {
		l := r.cfg.Ledger
		if l == nil {
			l = evidence.NewLedger()
		}
		r.ev = &evState{ledger: l, snaps: map[string]*evidence.Snapshot{}, hits: map[string]evidence.KnowledgeHit{},
			metrics: map[string]*evidence.MetricSet{}, tiers: map[string]string{}, unfinished: Unfinished{}}
		for k, v := range r.cfg.Unfinished {
			r.ev.unfinished[k] = append([]evidence.Entry(nil), v...)
		}
	})
	return r.ev
}

// tierRank orders the issuance tiers, best first.
var tierRank = map[string]int{"formal": 0, "degraded": 1, "withheld": 2}

// runTier is the worst tier of the contracted outputs ("" without any).
func (r *runner) runTier() string {
	ev := r.evidence()
	ev.mu.Lock()
	defer ev.mu.Unlock()
	tier := ""
	keys := make([]string, 0, len(ev.tiers))
	for k := range ev.tiers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if t := ev.tiers[k]; tier == "" || tierRank[t] > tierRank[tier] {
			tier = t
		}
	}
	return tier
}

// atHead reports whether the node at pos may take evidence numbers now:
// every node before it in the commit order of its graph has resolved (or
// is held behind a node waiting for people, and so will not run in this
// attempt), and the same holds for the enclosing node in every enclosing
// graph.
func (s *sequencer) atHead(pos int) bool {
	s.mu.Lock()
	ok := true
	for i := s.head; i < pos; i++ {
		if !s.slots[i].closed && !s.held[i] {
			ok = false
			break
		}
	}
	out := s.out
	s.mu.Unlock()
	if !ok {
		return false
	}
	if p, ok := out.(slotSink); ok {
		return p.seq.atHead(p.pos)
	}
	return true
}

// holdAfter marks every node after gn (its successors, transitively) as
// held: gn waits for people, so they will not run in this attempt and
// evidence after them must not wait for them.
func (g *graphRun) holdAfter(gn *gnode) {
	g.seq.mu.Lock()
	defer g.seq.mu.Unlock()
	if g.seq.held == nil {
		g.seq.held = map[int]bool{}
	}
	var walk func(n *gnode)
	walk = func(n *gnode) {
		for _, s := range n.out {
			if !g.seq.held[s.pos] {
				g.seq.held[s.pos] = true
				walk(s)
			}
		}
	}
	walk(gn)
}

// stopped reports whether this graph or an enclosing one stopped starting
// nodes (a node failed): the nodes before a waiting node may then never
// resolve.
func (g *graphRun) halted() bool {
	for c := g; c != nil; c = c.parent {
		if c.stopped.Load() {
			return true
		}
	}
	return false
}

// awaitTurn blocks until t's node is at the head of the run's commit
// order. Evidence is numbered (Q1, Q2, K1…) only there, so that nodes
// running in parallel get the same numbers on every run whatever order
// they finish in: the numbers follow the commit order, which depends on
// the graph alone. A leaf gives its pool slot back while it waits, so that
// the nodes it waits for can run.
func (t *task) awaitTurn(ctx context.Context) error {
	if t.g == nil || t.gn == nil || t.g.seq.atHead(t.gn.pos) {
		return nil
	}
	if ex, ok := executors[t.node.Type]; ok && ex.leaf {
		<-t.r.sem
		defer func() { t.r.sem <- struct{}{} }()
	}
	delay := 200 * time.Microsecond
	for !t.g.seq.atHead(t.gn.pos) {
		if t.g.halted() {
			return fmt.Errorf("node %q: the run stopped before its evidence could be numbered", t.id)
		}
		tm := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		case <-tm.C:
		}
		if delay < 5*time.Millisecond {
			delay *= 2
		}
	}
	return nil
}

// recordSnapshot numbers a query snapshot in the ledger, stores it and
// writes its evidence.added event. It waits for the node's turn first
// (awaitTurn), so numbering is deterministic.
func (t *task) recordSnapshot(ctx context.Context, s *evidence.Snapshot) (id, artifact string, err error) {
	if err := t.awaitTurn(ctx); err != nil {
		return "", "", err
	}
	ev := t.r.evidence()
	if e, ok := ev.claim(t.id, evidence.KindQuery, func(id string) ([]byte, error) {
		s.ID = id
		return s.Canonical()
	}); ok {
		ev.mu.Lock()
		ev.snaps[e.ID] = s
		ev.mu.Unlock()
		return e.ID, e.Artifact, nil
	}
	id, err = ev.ledger.AddSnapshot(s, func(b []byte) (string, error) {
		h, err := t.r.cfg.Recorder.PutArtifact(b)
		if err != nil {
			return "", err
		}
		artifact = h.String()
		return artifact, nil
	})
	if err != nil {
		return "", "", fmt.Errorf("node %q: storing its snapshot: %v", t.id, err)
	}
	ev.mu.Lock()
	ev.snaps[id] = s
	ev.mu.Unlock()
	if err := t.emit(pendingEvent{EvEvidenceAdded, t.id, map[string]any{"id": id, "kind": evidence.KindQuery, "artifact": artifact, "node": t.id}}); err != nil {
		return "", "", err
	}
	return id, artifact, nil
}

// recordHits numbers knowledge hits (K…), stores each as an artifact and
// writes their evidence.added events, in the order given.
func (t *task) recordHits(ctx context.Context, hits []evidence.KnowledgeHit) error {
	if err := t.awaitTurn(ctx); err != nil {
		return err
	}
	ev := t.r.evidence()
	for i := range hits {
		h := &hits[i]
		if e, ok := ev.claim(t.id, evidence.KindKnowledge, func(id string) ([]byte, error) {
			h.ID = id
			return canon.Marshal(h)
		}); ok {
			ev.mu.Lock()
			ev.hits[e.ID] = *h
			ev.mu.Unlock()
			continue
		}
		// The number is part of the stored bytes: take it under the
		// ledger's numbering, which only this node advances at its turn.
		h.ID = fmt.Sprintf("K%d", countKind(ev.ledger, evidence.KindKnowledge)+1)
		b, err := canon.Marshal(h)
		if err != nil {
			return fmt.Errorf("node %q: hit %d cannot be stored: %v", t.id, i, err)
		}
		art, err := t.r.cfg.Recorder.PutArtifact(b)
		if err != nil {
			return fmt.Errorf("node %q: storing hit %d: %v", t.id, i, err)
		}
		if got := ev.ledger.AddKnowledge(art.String()); got != h.ID {
			return fmt.Errorf("node %q: knowledge hit numbered %s, expected %s", t.id, got, h.ID)
		}
		ev.mu.Lock()
		ev.hits[h.ID] = *h
		ev.mu.Unlock()
		if err := t.emit(pendingEvent{EvEvidenceAdded, t.id, map[string]any{"id": h.ID, "kind": evidence.KindKnowledge, "artifact": art.String(), "node": t.id}}); err != nil {
			return err
		}
	}
	return nil
}

func countKind(l *evidence.Ledger, kind string) int {
	n := 0
	for _, e := range l.Entries() {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// warn writes a node.warning event: something the run continues past
// but that a reader of the evidence should know (a key type mismatch in
// a merge, a judge that is the writer's own model…).
func (t *task) warn(code, format string, args ...any) error {
	return t.emit(pendingEvent{EvNodeWarning, t.id, map[string]any{"code": code, "message": fmt.Sprintf(format, args...)}})
}

// snapshot returns query snapshot id (Q…) of this run: one this attempt
// stored, or one an earlier attempt stored (read back through the ledger).
func (r *runner) snapshot(id string) (*evidence.Snapshot, bool) {
	ev := r.evidence()
	ev.mu.Lock()
	s, ok := ev.snaps[id]
	ev.mu.Unlock()
	if ok {
		return s, true
	}
	b, ok := r.ledgerBytes(id)
	if !ok {
		return nil, false
	}
	s, err := evidence.DecodeSnapshot(b)
	if err != nil || s.ID != id {
		return nil, false
	}
	ev.mu.Lock()
	ev.snaps[id] = s
	ev.mu.Unlock()
	return s, true
}

// hit returns knowledge hit id (K…) of this run.
func (r *runner) hit(id string) (evidence.KnowledgeHit, bool) {
	ev := r.evidence()
	ev.mu.Lock()
	h, ok := ev.hits[id]
	ev.mu.Unlock()
	if ok {
		return h, true
	}
	b, ok := r.ledgerBytes(id)
	if !ok {
		return h, false
	}
	if err := json.Unmarshal(b, &h); err != nil || h.ID != id {
		return evidence.KnowledgeHit{}, false
	}
	ev.mu.Lock()
	ev.hits[id] = h
	ev.mu.Unlock()
	return h, true
}

func (r *runner) ledgerBytes(id string) ([]byte, bool) {
	e, ok := r.evidence().ledger.Lookup(id)
	if !ok || r.cfg.GetArtifact == nil {
		return nil, false
	}
	h, err := hashid.Parse(e.Artifact)
	if err != nil {
		return nil, false
	}
	b, err := r.cfg.GetArtifact(h)
	return b, err == nil
}
