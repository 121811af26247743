package verify

import (
	"bytes"
	"encoding/hex"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
)

// Verifying 100,000 events must not cost more than hashing the artifacts
// (docs/performance.md), so the verifier spreads the per-event work over every core
// and does it once. The shared definitions in package chain stay the
// authority: the fast path here only decides that a log is intact; as soon
// as anything looks wrong, the verdict and its messages come from
// chain.ParseLog and chain.VerifyChain themselves.

// parallelMin is the log size below which the plain serial path is used.
const parallelMin = 1 << 20

func workerCount(n int) int {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return n
}

// forChunks runs f over [0,n) split into contiguous chunks on workers
// goroutines.
func forChunks(n, workers int, f func(lo, hi int)) {
	if workers < 2 || n < 2*workers {
		f(0, n)
		return
	}
	chunks := workers * 4
	size := (n + chunks - 1) / chunks
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		wg.Add(1)
		sem <- struct{}{}
		go func(lo, hi int) {
			defer wg.Done()
			defer func() { <-sem }()
			f(lo, hi)
		}(lo, hi)
	}
	wg.Wait()
}

// parseLog is chain.ParseLog for large logs: lines in canonical form are
// read by chain.ReadCanonicalLine on every core, any other line by chain.ParseLog; if any
// line is not a clean canonical event, the whole log goes through
// chain.ParseLog so that positions and messages are exact. It also
// returns each event's line. The events' strings share b's bytes, so b
// must not change after the call.
func parseLog(name string, b []byte, workers int) ([]chain.Event, []chain.Problem, *chain.TornTail, [][]byte, error) {
	lines := splitLines(b)
	serial := func() ([]chain.Event, []chain.Problem, *chain.TornTail, [][]byte, error) {
		evs, probs, torn, err := chain.ParseLog(name, b)
		return evs, probs, torn, lines, err
	}
	if len(b) < parallelMin/16 {
		return serial()
	}
	evs := make([]chain.Event, len(lines))
	// the events' strings are cut from the log itself: a copy of a large
	// log costs more than parsing it (fresh pages, each faulted in)
	text := unsafe.String(unsafe.SliceData(b), len(b))
	starts := make([]int, len(lines))
	for i, off := 0, 0; i < len(lines); i++ {
		starts[i] = off
		off += len(lines[i]) + 1
	}
	var slow atomic.Bool
	forChunks(len(lines), workerCount(workers), func(lo, hi int) {
		for i := lo; i < hi && !slow.Load(); i++ {
			e, ok := chain.ReadCanonicalLineText(lines[i], text[starts[i]:starts[i]+len(lines[i])])
			if !ok {
				es, probs, torn, err := chain.ParseLog(name, append(lines[i][:len(lines[i]):len(lines[i])], '\n'))
				if err != nil || len(probs) > 0 || torn != nil || len(es) != 1 {
					slow.Store(true)
					return
				}
				e = es[0]
			}
			evs[i] = e
		}
	})
	if slow.Load() {
		return serial()
	}
	var torn *chain.TornTail
	whole := 0
	for _, l := range lines {
		whole += len(l) + 1
	}
	if whole < len(b) {
		// an unterminated last line: ParseLog's torn tail
		return serial()
	}
	return evs, nil, torn, lines, nil
}

// splitLines returns the newline-terminated lines of b, without newline.
func splitLines(b []byte) [][]byte {
	out := make([][]byte, 0, bytes.Count(b, []byte{'\n'}))
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		out = append(out, b[:i])
		b = b[i+1:]
	}
	return out
}

// lineHash hashes an event from its canonical line: the line without its
// "hash" member, which sorts right after "data" (docs/formats.md, "Event
// hash"). ok is false when the line is not laid out that way, and the
// caller falls back to Event.ComputeHash.
func lineHash(e *chain.Event, line []byte, buf *[]byte) (hashid.ID, bool) {
	pos := 1
	if len(e.Data) > 0 {
		pos += len(`"data":`) + len(e.Data) + 1
	}
	// the member is `"hash":"` + e.Hash + `",`, compared piece by piece
	// rather than built for each of 100,000 events
	const open = `"hash":"`
	end := pos + len(open) + len(e.Hash) + len(`",`)
	if end > len(line) || string(line[pos:pos+len(open)]) != open ||
		string(line[pos+len(open):end-2]) != e.Hash || string(line[end-2:end]) != `",` {
		return hashid.ID{}, false
	}
	b := append((*buf)[:0], line[:pos]...)
	b = append(b, line[end:]...)
	*buf = b
	return hashid.Sum(b), true
}

// hashIs reports whether s is h.String() without building that string
// (100,000 events would allocate 100,000 of them).
func hashIs(h hashid.ID, s string) bool {
	const prefix = hashid.Prefix
	var x [2 * len(h)]byte
	if len(s) != len(prefix)+len(x) || s[:len(prefix)] != prefix {
		return false
	}
	hex.Encode(x[:], h[:])
	return string(x[:]) == s[len(prefix):]
}

// chainIntact reports whether the events verify, as chain.VerifyChain
// would find no problem. lines are the events' canonical lines (ParseLog
// found no non-canonical line), or nil.
func chainIntact(run string, evs []chain.Event, lines [][]byte, workers int) bool {
	bad := make([]bool, len(evs))
	forChunks(len(evs), workerCount(workers), func(lo, hi int) {
		var buf []byte
		for i := lo; i < hi; i++ {
			e := &evs[i]
			var h hashid.ID
			ok := false
			if lines != nil && i < len(lines) {
				h, ok = lineHash(e, lines[i], &buf)
			}
			if !ok {
				var err error
				if h, err = e.ComputeHash(); err != nil {
					bad[i] = true
					continue
				}
			}
			if _, err := time.Parse(chain.TimeLayout, e.Time); err != nil || !hashIs(h, e.Hash) || e.Type == "" {
				bad[i] = true
			}
		}
	})
	prev := chain.Genesis(run).String()
	for i := range evs {
		if bad[i] || evs[i].Seq != int64(i+1) || evs[i].Prev != prev {
			return false
		}
		prev = evs[i].Hash
	}
	return true
}

// referenced is chain.ReferencedArtifacts over many events, decoding only
// the events whose data can hold an artifact key, on several cores.
func referenced(evs []chain.Event, workers int) []string {
	var mu sync.Mutex
	seen := map[string]bool{}
	forChunks(len(evs), workerCount(workers), func(lo, hi int) {
		var sub []chain.Event
		for i := lo; i < hi; i++ {
			// an artifact key ends in "artifact" or "artifacts": in canonical
			// JSON it is followed by `":`
			if d := evs[i].Data; bytes.Contains(d, []byte(`artifact":`)) || bytes.Contains(d, []byte(`artifacts":`)) {
				sub = append(sub, evs[i])
			}
		}
		ids := chain.ReferencedArtifacts(sub)
		mu.Lock()
		for _, id := range ids {
			seen[id] = true
		}
		mu.Unlock()
	})
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// computeSeal is chain.ComputeSeal for a verifier that has checked the
// chain already (intact); a chain that is not intact goes through
// ComputeSeal for its error.
func computeSeal(run, plan string, evs []chain.Event, intact bool, workers int) (chain.Seal, error) {
	end := chain.SealedPrefix(evs)
	if end < 0 || !intact {
		return chain.ComputeSeal(run, plan, evs)
	}
	if _, err := hashid.Parse(plan); err != nil {
		return chain.ComputeSeal(run, plan, evs)
	}
	head := evs[end]
	return chain.Seal{Format: chain.SealFormat, Run: run, Plan: plan, Head: head.Hash, Seq: head.Seq, Artifacts: referenced(evs[:end+1], workers)}, nil
}
