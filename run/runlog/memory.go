package runlog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
)

// NewMemory returns a run whose events and record live in memory only: an
// evaluation's case, whose whole chain the evaluation stores in its own
// record (one artifact per batch of cases) instead of a run directory per
// case. It appends, seals and stores artifacts like a run on disk, so the
// engine cannot tell the difference; nothing is written under runs/.
// Dir names scratch/<id>, which exists only while a code node of the run
// needs a working directory; the caller removes it.
func NewMemory(dataDir, scratch, runID string, rec Record) (*Run, error) {
	if err := CheckID(runID); err != nil {
		return nil, err
	}
	r := newRun(dataDir, runID, filepath.Join(scratch, runID))
	r.mem = &memFile{name: runID}
	r.log = make([]chain.Event, 0, memEvents)
	r.events = r.mem
	rec.Format, rec.ID = RecordFormat, runID
	r.rec = rec
	return r, nil
}

// Log returns the bytes of a memory run's event log (JSON lines, as
// events.jsonl would hold them); nil for a run on disk.
func (r *Run) Log() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mem == nil {
		return nil
	}
	return r.mem.bytes()
}

// open reports whether the record may still be written: a run on disk
// while it holds its lock, a memory run until it is closed.
func (r *Run) open() bool {
	if r.mem != nil {
		return !r.mem.closed
	}
	return r.lock != nil
}

// memLogCap is the room a memory run's log starts with when the runs
// before it say nothing (an evaluation's case of a few nodes writes 2–3
// KB), and memEvents the room for its events.
const (
	memLogCap = 4 << 10
	memEvents = 16
)

// memLogHint is the size of the last memory run's log: the runs of one
// evaluation are alike, so the next one starts with room for as much.
var memLogHint atomic.Int64

// memFile is the event log of a memory run: the lines AppendBatch wrote,
// in one buffer.
type memFile struct {
	name   string
	buf    []byte
	closed bool
}

func (f *memFile) Read([]byte) (int, error) {
	return 0, errors.New("runlog: a memory run's log is not read back through its file")
}
func (f *memFile) Write(b []byte) (int, error) {
	if f.closed {
		return 0, fs.ErrClosed
	}
	if f.buf == nil {
		f.buf = make([]byte, 0, max(len(b), memLogCap))
	}
	f.buf = append(f.buf, b...)
	return len(b), nil
}

// appendLines writes the lines of evs to the log, as Write would write
// them from a buffer (size is about their length).
func (f *memFile) appendLines(evs []chain.Event, size int) (int, error) {
	if f.closed {
		return 0, fs.ErrClosed
	}
	if f.buf == nil {
		room := memLogCap
		if h := memLogHint.Load(); h > 0 {
			room = int(h)
		}
		f.buf = make([]byte, 0, max(size, room))
	}
	start := len(f.buf)
	for i := range evs {
		f.buf = append(evs[i].AppendLine(f.buf), '\n')
	}
	return len(f.buf) - start, nil
}

func (f *memFile) Close() error {
	if !f.closed && len(f.buf) > 0 {
		memLogHint.Store(int64(len(f.buf) + len(f.buf)/8)) // and some room to spare
	}
	f.closed = true
	return nil
}
func (f *memFile) Name() string { return f.name }
func (f *memFile) Sync() error  { return nil }

// Truncate cuts the log back to size bytes (a write that failed halfway;
// a memory write never does).
func (f *memFile) Truncate(size int64) error {
	if size < int64(len(f.buf)) {
		f.buf = f.buf[:size]
	}
	return nil
}
func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f}, nil }

// bytes returns the log; appending to what it returns never changes it.
func (f *memFile) bytes() []byte { return f.buf[:len(f.buf):len(f.buf)] }

type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return i.f.name }
func (i memInfo) Size() int64        { return int64(len(i.f.buf)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// sealEvents is chain.ComputeSeal over events this process appended (or
// loaded and verified): the chain of a run on disk is verified again
// (verifyChain), a memory run's never left the process, and only events
// whose data names an artifact key are decoded for the references.
func sealEvents(runID, planHash string, events []chain.Event, verifyChain bool) (chain.Seal, error) {
	if _, err := hashid.Parse(planHash); err != nil {
		return chain.Seal{}, fmt.Errorf("seal: plan: %w", err)
	}
	end := chain.SealedPrefix(events)
	if end < 0 {
		return chain.Seal{}, fmt.Errorf("seal run %s: %w", runID, chain.ErrNotFinished)
	}
	if verifyChain {
		if ps := chain.VerifyChain(runID, events[:end+1]); len(ps) > 0 {
			return chain.Seal{}, fmt.Errorf("seal run %s: event chain is broken: %s", runID, ps[0])
		}
	}
	head := events[end]
	return chain.Seal{
		Format: chain.SealFormat, Run: runID, Plan: planHash, Head: head.Hash, Seq: head.Seq,
		Artifacts: ReferencedArtifacts(events[:end+1]),
	}, nil
}

// ReferencedArtifacts is chain.ReferencedArtifacts for events whose data
// is canonical (written by AppendBatch, or verified when loaded): only
// those whose data can name an artifact key are decoded, since canonical
// JSON never escapes the letters of a key.
func ReferencedArtifacts(events []chain.Event) []string {
	var refs []chain.Event
	for _, e := range events {
		if bytes.Contains(e.Data, []byte("artifact")) {
			refs = append(refs, e)
		}
	}
	return chain.ReferencedArtifacts(refs)
}
