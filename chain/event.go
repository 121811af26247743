// Package chain defines the hash-chained event log and the seal of a run.
//
// It is a leaf package shared by the run engine, which writes events, and by
// the verifier, which checks them offline; it must never import anything
// under run/, so that an independent verifier stays small and auditable.
// docs/formats.md describes the same rules for implementations in other
// languages (the bundle's inline script re-implements them in JavaScript).
//
// Where it fits: docs/architecture.md#leaf-formats.
package chain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

// Event types written by the engine. The list is open: the chain treats any
// non-empty type alike, but these names are the documented vocabulary.
const (
	TypeRunStarted   = "run.started"
	TypeNodeStarted  = "node.started"
	TypeNodeToken    = "node.token" // streamed to the terminal only; never recorded (see Recorded)
	TypeToolCalled   = "tool.called"
	TypeToolResult   = "tool.result"
	TypeNodeFinished = "node.finished"
	TypeNodeFailed   = "node.failed"
	TypeNodeSkipped  = "node.skipped"
	TypeHumanWaiting = "human.waiting"
	TypeHumanDecided = "human.decided"
	TypeRunFinished  = "run.finished"
	TypeRunCancelled = "run.cancelled"
)

// Recorded reports whether events of type typ belong in events.jsonl.
// node.token events are progress output: recording every token would make
// the sealed log depend on streaming chunk boundaries, so they are not
// written and are therefore not sealed (docs/formats.md).
func Recorded(typ string) bool { return typ != TypeNodeToken }

// TimeLayout is the event time format: RFC 3339 in UTC with exactly nine
// fractional digits, so that times sort as strings and every writer produces
// the same bytes for the same instant.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// Event is one line of events.jsonl.
type Event struct {
	Seq  int64           `json:"seq"`            // 1-based, contiguous
	Time string          `json:"time"`           // TimeLayout
	Type string          `json:"type"`           // see the Type constants
	Node string          `json:"node,omitempty"` // the node the event is about, if any
	Data json.RawMessage `json:"data,omitempty"` // canonical JSON
	Prev string          `json:"prev"`           // Hash of the previous event; Genesis(run) for seq 1
	Hash string          `json:"hash"`           // see ComputeHash
}

// GenesisPrefix is prepended to the run id to form the genesis value; the
// prefix keeps the genesis of one run from colliding with any other hash
// agentlab computes over canonical JSON.
const GenesisPrefix = "agentlab.chain.v1:"

// Genesis is the Prev value of the first event of run runID: BLAKE3 of the
// UTF-8 bytes GenesisPrefix + runID. It ties the chain to its run, so events
// copied from another run do not verify.
func Genesis(runID string) hashid.ID { return hashid.Sum([]byte(GenesisPrefix + runID)) }

// ComputeHash returns BLAKE3 of the canonical JSON of e without its "hash"
// key. Node is left out when empty and Data when absent, exactly as in the
// stored line, so a verifier may equally delete "hash" from the parsed line
// and canonicalise what remains. Data is canonicalised first, so a value
// read back from any JSON spelling hashes the same.
func (e Event) ComputeHash() (hashid.ID, error) {
	if len(e.Data) > 0 {
		d, err := canon.Canonicalize(e.Data)
		if err != nil {
			return hashid.ID{}, fmt.Errorf("event %d: data: %w", e.Seq, err)
		}
		e.Data = d
	}
	return hashid.Sum(e.appendCanonical(make([]byte, 0, e.size()), false)), nil
}

// hashCanonical is ComputeHash for an event whose data is canonical
// already.
func (e Event) hashCanonical() (hashid.ID, error) {
	bp := scratch.Get().(*[]byte)
	b := e.appendCanonical((*bp)[:0], false)
	h := hashid.Sum(b)
	putScratch(bp, b)
	return h, nil
}

// size is about the length of e's line: room enough that writing it
// allocates once.
func (e Event) size() int {
	return len(e.Data) + len(e.Hash) + len(e.Node) + len(e.Prev) + len(e.Type) + len(e.Time) + 96
}

// Line returns the canonical JSON of e including its hash, without newline:
// the exact bytes of its line in events.jsonl.
func (e Event) Line() ([]byte, error) {
	if len(e.Data) > 0 {
		d, err := canon.Canonicalize(e.Data)
		if err != nil {
			return nil, fmt.Errorf("event %d: data: %w", e.Seq, err)
		}
		e.Data = d
	}
	return e.appendCanonical(make([]byte, 0, e.size()), true), nil
}

// AppendLine appends the canonical JSON line of e (with hash, without
// newline) to b. Unlike Line it trusts Data to be canonical already, as
// NewEvent makes it; it is the fast path for writers of new events.
func (e Event) AppendLine(b []byte) []byte { return e.appendCanonical(b, true) }

// appendCanonical writes e as canonical JSON (keys in byte order: data,
// hash, node, prev, seq, time, type) assuming e.Data is canonical already.
// It is equivalent to canon.Marshal of the struct, without the round trip
// through encoding/json that would dominate the cost of an append.
func (e Event) appendCanonical(b []byte, withHash bool) []byte {
	b = append(b, '{')
	if len(e.Data) > 0 {
		b = append(b, `"data":`...)
		b = append(b, e.Data...)
		b = append(b, ',')
	}
	if withHash {
		b = append(b, `"hash":`...)
		b = canon.AppendString(b, e.Hash)
		b = append(b, ',')
	}
	if e.Node != "" {
		b = append(b, `"node":`...)
		b = canon.AppendString(b, e.Node)
		b = append(b, ',')
	}
	b = append(b, `"prev":`...)
	b = canon.AppendString(b, e.Prev)
	b = append(b, `,"seq":`...)
	seq, err := canon.Number(strconv.FormatInt(e.Seq, 10))
	if err != nil { // beyond 2^53: written as a float, as canon would
		seq = strconv.FormatInt(e.Seq, 10)
	}
	b = append(b, seq...)
	b = append(b, `,"time":`...)
	b = canon.AppendString(b, e.Time)
	b = append(b, `,"type":`...)
	b = canon.AppendString(b, e.Type)
	return append(b, '}')
}

// NewEvent builds event seq of run runID following prev (nil for seq 1),
// stamps it with t, encodes data as canonical JSON (nil data is left out;
// json.RawMessage is canonicalised) and fills Prev and Hash.
func NewEvent(prev *Event, runID string, seq int64, t time.Time, typ, node string, data any) (Event, error) {
	if typ == "" {
		return Event{}, fmt.Errorf("event %d: empty type", seq)
	}
	e := Event{Seq: seq, Time: FormatTime(t), Type: typ, Node: node}
	switch {
	case prev == nil:
		if seq != 1 {
			return Event{}, fmt.Errorf("event %d: no previous event, so seq must be 1", seq)
		}
		e.Prev = Genesis(runID).String()
	default:
		if seq != prev.Seq+1 {
			return Event{}, fmt.Errorf("event %d does not follow event %d", seq, prev.Seq)
		}
		e.Prev = prev.Hash
	}
	raw, err := encodeData(data)
	if err != nil {
		return Event{}, fmt.Errorf("event %d (%s): data: %w", seq, typ, err)
	}
	e.Data = raw
	bp := scratch.Get().(*[]byte)
	b := e.appendCanonical((*bp)[:0], false)
	e.Hash = hashid.Sum(b).String()
	putScratch(bp, b)
	return e, nil
}

// scratch holds buffers for bytes that are hashed or copied and then
// dropped: an event's hashed form, its data before it is cut to size.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// putScratch returns b's buffer to the pool unless it grew too large to
// keep.
func putScratch(bp *[]byte, b []byte) {
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		scratch.Put(bp)
	}
}

// CanonicalJSON is event data its writer built as canonical JSON and
// hands over to the log: NewEvent keeps it without a copy once it has
// checked that it is canonical, so the writer must not change it after.
// It marshals as itself, as json.RawMessage does.
type CanonicalJSON []byte

// MarshalJSON returns c.
func (c CanonicalJSON) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	return c, nil
}

func encodeData(data any) (json.RawMessage, error) {
	switch v := data.(type) {
	case nil:
		return nil, nil
	case CanonicalJSON:
		if len(v) == 0 {
			return nil, nil
		}
		if canon.IsCanonical(v) {
			return json.RawMessage(v), nil
		}
		return canon.Canonicalize(v)
	case json.RawMessage:
		if len(v) == 0 {
			return nil, nil
		}
		return canon.Canonicalize(v)
	case []byte:
		return nil, fmt.Errorf("raw bytes are not event data; store them with PutArtifact and reference the id")
	}
	// The same bytes as canon.Marshal (canon's FuzzAppendValueEqualsMarshal),
	// without encoding a whole map only to decode and sort it again.
	// Written into a scratch buffer and copied at its final size: one
	// allocation instead of a buffer doubling its way up.
	bp := scratch.Get().(*[]byte)
	b, err := canon.AppendValue((*bp)[:0], data)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(b)
	putScratch(bp, b)
	return out, nil
}
