package chain

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

// SealFormat is the current Seal.Format.
const SealFormat = 1

// Seal pins a finished run: the head of its event chain at run.finished
// and every artifact those events reference. Its hash is what people
// publish and what `verify --expect` compares.
type Seal struct {
	Format    int      `json:"format"`
	Run       string   `json:"run"`
	Plan      string   `json:"plan"`      // b3:… of the plan
	Head      string   `json:"head"`      // hash of the run.finished event
	Seq       int64    `json:"seq"`       // seq of run.finished
	Artifacts []string `json:"artifacts"` // sorted, unique b3 ids referenced by sealed events
}

// Hash returns BLAKE3 of the canonical JSON of s (a nil Artifacts list is
// hashed as the empty list, never as null).
func (s Seal) Hash() (hashid.ID, error) {
	return hashid.Sum(s.canonical()), nil
}

// canonical is the canonical JSON of s, keys in byte order, written
// directly (every run and every case of an evaluation hashes its seal);
// TestSealCanonicalEqualsMarshal holds it to canon.Marshal. The error
// Hash returns is always nil: every field of a seal can be written.
func (s Seal) canonical() []byte {
	n := 96 + len(s.Run) + len(s.Plan) + len(s.Head)
	for _, a := range s.Artifacts {
		n += len(a) + 3
	}
	b := make([]byte, 0, n)
	b = append(b, `{"artifacts":[`...)
	for i, a := range s.Artifacts {
		if i > 0 {
			b = append(b, ',')
		}
		b = canon.AppendString(b, a)
	}
	b = append(b, `],"format":`...)
	b = canon.AppendInt(b, int64(s.Format))
	b = append(b, `,"head":`...)
	b = canon.AppendString(b, s.Head)
	b = append(b, `,"plan":`...)
	b = canon.AppendString(b, s.Plan)
	b = append(b, `,"run":`...)
	b = canon.AppendString(b, s.Run)
	b = append(b, `,"seq":`...)
	b = canon.AppendInt(b, s.Seq)
	return append(b, '}')
}

// ErrNotFinished is returned by ComputeSeal for a log without run.finished.
var ErrNotFinished = errors.New("run has no run.finished event")

// ComputeSeal seals events of run runID under plan planHash. It uses the
// events up to and including the first run.finished; events after it are
// kept in the log but are outside the seal. The sealed prefix must verify
// (VerifyChain); a broken chain cannot be sealed.
func ComputeSeal(runID, planHash string, events []Event) (Seal, error) {
	if _, err := hashid.Parse(planHash); err != nil {
		return Seal{}, fmt.Errorf("seal: plan: %w", err)
	}
	end := SealedPrefix(events)
	if end < 0 {
		return Seal{}, fmt.Errorf("seal run %s: %w", runID, ErrNotFinished)
	}
	sealed := events[:end+1]
	if ps := VerifyChain(runID, sealed); len(ps) > 0 {
		return Seal{}, fmt.Errorf("seal run %s: event chain is broken: %s", runID, ps[0])
	}
	head := sealed[end]
	return Seal{
		Format:    SealFormat,
		Run:       runID,
		Plan:      planHash,
		Head:      head.Hash,
		Seq:       head.Seq,
		Artifacts: ReferencedArtifacts(sealed),
	}, nil
}

// SealedPrefix returns the index of the first run.finished event, or -1.
func SealedPrefix(events []Event) int {
	for i, e := range events {
		if e.Type == TypeRunFinished {
			return i
		}
	}
	return -1
}

// IsArtifactKey reports whether an object key names artifact references:
// "artifact", "artifacts", or a key ending in "_artifact" or "_artifacts".
// Keys are compared case-sensitively.
func IsArtifactKey(k string) bool {
	return k == "artifact" || k == "artifacts" ||
		strings.HasSuffix(k, "_artifact") || strings.HasSuffix(k, "_artifacts")
}

// ReferencedArtifacts returns the sorted, unique artifact ids referenced by
// events. The rule (docs/formats.md, "Referenced artifacts"): walk every
// event's data recursively through all objects and arrays; wherever an
// object member's key satisfies IsArtifactKey, take its value if it is a
// string, or each string element if it is an array; keep the strings that
// are valid ids ("b3:" + 64 lowercase hex digits). Other values under such
// keys are ignored, and walking continues into them. Never returns nil.
func ReferencedArtifacts(events []Event) []string {
	seen := map[string]bool{}
	for _, e := range events {
		if len(e.Data) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(e.Data, &v); err != nil {
			continue // such an event fails VerifyChain (cannot hash) anyway
		}
		collect(v, seen)
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func collect(v any, seen map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if IsArtifactKey(k) {
				take(val, seen)
			}
			collect(val, seen)
		}
	case []any:
		for _, val := range x {
			collect(val, seen)
		}
	}
}

func take(v any, seen map[string]bool) {
	switch x := v.(type) {
	case string:
		if _, err := hashid.Parse(x); err == nil {
			seen[x] = true
		}
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				if _, err := hashid.Parse(s); err == nil {
					seen[s] = true
				}
			}
		}
	}
}
