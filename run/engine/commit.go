package engine

import "sync"

// pendingEvent is an event waiting for its turn in the commit order.
type pendingEvent struct {
	typ  string
	node string
	data any
}

// sink is where a sequencer's events go: the Recorder at the top level,
// the slot of the enclosing node in a nested graph.
type sink interface {
	emit(ev pendingEvent) error
	emitBatch(evs []pendingEvent) error
}

// sequencer commits the events of one graph's nodes in commit order. The
// node at the head of the order writes straight through; others buffer
// until every node before them is resolved (closed).
type sequencer struct {
	mu    sync.Mutex
	out   sink
	slots []slot
	head  int
	err   error // first write error; sticky
	// held marks positions that will not run in this attempt (behind a
	// node waiting for people); see atHead in evidence.go.
	held map[int]bool
}

type slot struct {
	evs    []pendingEvent
	closed bool
}

func newSequencer(out sink, n int) *sequencer {
	return &sequencer{out: out, slots: make([]slot, n)}
}

// emit queues or writes one event of the node at position pos.
func (s *sequencer) emit(pos int, ev pendingEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if pos == s.head {
		s.err = s.out.emit(ev)
		return s.err
	}
	s.slots[pos].evs = append(s.slots[pos].evs, ev)
	return nil
}

// close marks the node at pos resolved and flushes every slot that is now
// at the head of the order.
func (s *sequencer) close(pos int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots[pos].closed = true
	var batch []pendingEvent
	for s.head < len(s.slots) && s.slots[s.head].closed {
		s.head++
		if s.head < len(s.slots) {
			batch = append(batch, s.slots[s.head].evs...)
			s.slots[s.head].evs = nil
		}
	}
	s.writeLocked(batch)
	return s.err
}

// writeLocked writes buffered events in one batch: one write and at most
// one fsync for all the nodes that just reached the head of the order.
func (s *sequencer) writeLocked(batch []pendingEvent) {
	if len(batch) > 0 && s.err == nil {
		s.err = s.out.emitBatch(batch)
	}
}

// drain writes whatever is still buffered, in order, when a graph ends
// early (a failure or cancellation left some nodes unresolved).
func (s *sequencer) drain() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var batch []pendingEvent
	for i := s.head; i < len(s.slots); i++ {
		batch = append(batch, s.slots[i].evs...)
		s.slots[i].evs = nil
	}
	s.head = len(s.slots)
	s.writeLocked(batch)
	return s.err
}

// slotSink forwards a nested graph's events into one slot of its parent.
type slotSink struct {
	seq *sequencer
	pos int
}

func (p slotSink) emit(ev pendingEvent) error { return p.seq.emit(p.pos, ev) }

func (p slotSink) emitBatch(evs []pendingEvent) error {
	p.seq.mu.Lock()
	defer p.seq.mu.Unlock()
	if p.seq.err != nil {
		return p.seq.err
	}
	if p.pos == p.seq.head {
		p.seq.writeLocked(evs)
		return p.seq.err
	}
	p.seq.slots[p.pos].evs = append(p.seq.slots[p.pos].evs, evs...)
	return nil
}

// recorderSink writes to the Recorder.
type recorderSink struct{ rec Recorder }

func (r recorderSink) emit(ev pendingEvent) error { return r.rec.Append(ev.typ, ev.node, ev.data) }

func (r recorderSink) emitBatch(evs []pendingEvent) error {
	if br, ok := r.rec.(BatchRecorder); ok {
		ps := make([]Event, len(evs))
		for i, ev := range evs {
			ps[i] = Event{Type: ev.typ, Node: ev.node, Data: ev.data}
		}
		return br.AppendBatch(ps)
	}
	for _, ev := range evs {
		if err := r.rec.Append(ev.typ, ev.node, ev.data); err != nil {
			return err
		}
	}
	return nil
}
