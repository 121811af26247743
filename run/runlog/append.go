package runlog

import (
	"fmt"

	"github.com/agentlab/agentlab/chain"
)

// SyncPolicy says which appends wait for fsync.
type SyncPolicy int

const (
	// SyncBoundaries (the default) fsyncs after every event except the
	// progress events node.started, tool.called and tool.result. Those are
	// written at once (a reader of the file sees them) and become durable
	// with the next fsync'd event. Losing them in a crash only means the
	// node re-runs on resume, because a node counts as done only once its
	// node.finished (always fsync'd) is on disk: the engine may start a
	// node's dependents as soon as Append of that node.finished returns.
	SyncBoundaries SyncPolicy = iota
	// SyncEvery fsyncs after every event.
	SyncEvery
)

// SetSyncPolicy chooses when appends are fsync'd.
func (r *Run) SetSyncPolicy(p SyncPolicy) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.policy = p
}

func (r *Run) needsSync(typ string) bool {
	if r.policy == SyncEvery {
		return true
	}
	switch typ {
	case chain.TypeNodeStarted, chain.TypeToolCalled, chain.TypeToolResult:
		return false
	}
	return true
}

// Pending is an event to append with AppendBatch.
type Pending struct {
	Type string
	Node string
	Data any
}

// Append adds one event to the chain, timed by the run clock, and returns
// it once it is written (and, per the SyncPolicy, durable). node.token
// events are refused: they are not recorded (chain.Recorded).
func (r *Run) Append(typ, node string, data any) (chain.Event, error) {
	evs, err := r.AppendBatch([]Pending{{Type: typ, Node: node, Data: data}})
	if err != nil {
		return chain.Event{}, err
	}
	return evs[0], nil
}

// maxScratch bounds the line buffer a run keeps between batches.
const maxScratch = 1 << 20

// AppendBatch adds several events with one write and at most one fsync
// (a group commit), all or nothing: if any event cannot be built nothing is
// written.
func (r *Run) AppendBatch(ps []Pending) ([]chain.Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.events == nil {
		return nil, fmt.Errorf("run %s: %w", r.id, ErrClosed)
	}
	if r.failed != nil {
		return nil, fmt.Errorf("run %s: an earlier write to the event log failed (%v); close the run and resume it", r.id, r.failed)
	}
	var (
		out  = make([]chain.Event, 0, len(ps))
		buf  []byte
		sync bool
	)
	var prev *chain.Event
	if n := len(r.log); n > 0 {
		prev = &r.log[n-1]
	}
	seq := int64(len(r.log))
	for _, p := range ps {
		if !chain.Recorded(p.Type) {
			return nil, fmt.Errorf("run %s: %w: %s events are streamed to the terminal only, never written to the log", r.id, ErrUnrecorded, p.Type)
		}
		seq++
		e, err := chain.NewEvent(prev, r.id, seq, r.clock(), p.Type, p.Node, redactEventData(p.Data))
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.id, err)
		}
		out = append(out, e)
		prev = &out[len(out)-1]
		sync = sync || r.needsSync(p.Type)
	}
	size := 0
	for i := range out {
		// the keys, seq, time and quotes take under 128 bytes
		size += len(out[i].Data) + len(out[i].Hash) + len(out[i].Prev) + len(out[i].Node) + len(out[i].Type) + 128
	}
	var n int
	var err error
	if r.mem != nil {
		// A memory run's lines go straight into its log.
		n, err = r.mem.appendLines(out, size)
	} else {
		// The lines are written to the file at once, so one buffer serves
		// every batch of the run.
		buf = r.scratch[:0]
		if cap(buf) < size {
			buf = make([]byte, 0, size)
		}
		for i := range out {
			buf = append(out[i].AppendLine(buf), '\n')
		}
		if cap(buf) <= maxScratch {
			r.scratch = buf[:0]
		}
		n, err = r.events.Write(buf)
	}
	if err != nil {
		// Cut a partial write back so the file still ends with a whole line.
		if terr := r.events.Truncate(r.size); terr != nil {
			r.failed = err
		}
		return nil, fmt.Errorf("run %s: append to event log: %w", r.id, err)
	}
	r.size += int64(n)
	if r.lean {
		kept := make([]chain.Event, len(out))
		for i, e := range out {
			e.Data = nil
			kept[i] = e
		}
		r.log = append(r.log, kept...)
	} else {
		r.log = append(r.log, out...)
	}
	if sync {
		if err := r.events.Sync(); err != nil {
			// After a failed fsync the state of the page cache is unknown;
			// nothing more may be appended by this process.
			r.failed = err
			return nil, fmt.Errorf("run %s: fsync event log: %w", r.id, err)
		}
	}
	if len(out) > 0 {
		crashAfterEvents(out[0].Seq, out[len(out)-1].Seq)
	}
	return out, nil
}

// Sync makes every event written so far durable.
func (r *Run) Sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.events == nil {
		return ErrClosed
	}
	return r.events.Sync()
}
