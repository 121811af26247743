package verify

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
)

// evalStart is what an evaluation's run.started says about which cases it
// holds and how they were run.
type evalStart struct {
	Shard    string   `json:"shard"`
	Variants []string `json:"variants"`
	CaseLogs bool     `json:"case_logs"`
}

func readEvalStart(evs []chain.Event) evalStart {
	var s evalStart
	if len(evs) > 0 && evs[0].Type == chain.TypeRunStarted {
		json.Unmarshal(evs[0].Data, &s)
	}
	return s
}

// recordCases collects an evaluation's eval.case events: each case's key
// (question/variant/repeat) once, its address the hash of its bytes, and
// the bytes, in order, that the cases artifact must hold.
type recordCases struct {
	order []string
	byKey map[string]recordedCase
	raw   [][]byte
}

func newRecordCases() *recordCases { return &recordCases{byKey: map[string]recordedCase{}} }

func caseKey(q, variant string, repeat int64) string {
	return q + "/" + variant + "/" + strconv.FormatInt(repeat, 10)
}

// add records one case and says what is wrong with it ("" when nothing).
func (rc *recordCases) add(c recordedCase, raw json.RawMessage, address string) string {
	k := caseKey(c.Question, c.Variant, c.Repeat)
	rc.raw = append(rc.raw, raw)
	if _, dup := rc.byKey[k]; dup {
		return fmt.Sprintf("case %s is in the record twice", k)
	}
	rc.byKey[k] = c
	rc.order = append(rc.order, k)
	if got := hashid.Sum(raw).String(); got != address {
		return fmt.Sprintf("case %s: its bytes hash to %s, its address is %s", k, short(got), short(address))
	}
	return ""
}

// finished checks a finished evaluation's cases as a whole: the cases
// artifact holds exactly the recorded cases, in order; and, when the
// record names its variants and the suite can be read, the record holds
// every case of the suite's questions in its shard × those variants ×
// their repeats, and no other.
func (rc *recordCases) finished(casesArtifact string, get func(hashid.ID) ([]byte, error), s *evalSuite, start evalStart) []string {
	var out []string
	if id, err := hashid.Parse(casesArtifact); err == nil {
		if b, err := get(id); err == nil {
			want := append([]byte{'['}, bytes.Join(rc.raw, []byte{','})...)
			if want = append(want, ']'); !bytes.Equal(b, want) {
				out = append(out, "the cases artifact is not the array of the recorded cases")
			}
		}
	}
	if s == nil || start.Variants == nil {
		return out
	}
	index, count := shardOf(start.Shard)
	repeats := map[string]int64{}
	for _, vr := range s.Variants {
		repeats[vr.Name] = vr.Repeats
	}
	want := map[string]bool{}
	for _, q := range s.Questions {
		if count > 1 && questionShard(q.ID, count) != index {
			continue
		}
		for _, vn := range start.Variants {
			for r := int64(0); r < repeats[vn]; r++ {
				want[caseKey(q.ID, vn, r)] = true
			}
		}
	}
	for _, k := range rc.order {
		if !want[k] {
			out = append(out, fmt.Sprintf("case %s is not one of the evaluation's (its suite, shard, variants and repeats)", k))
		}
		delete(want, k)
	}
	if len(want) > 0 {
		out = append(out, fmt.Sprintf("%d case(s) of the evaluation are not in the record, though it finished", len(want)))
	}
	return out
}

// shardOf reads run.started's "i/n" (n ≤ 1 when none).
func shardOf(s string) (int, int) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 {
		return 1, 1
	}
	return i, n
}

// questionShard is the 1-based shard of question id among n: the first 8
// bytes of BLAKE3(id), big-endian, modulo n, plus one (docs/evals.md,
// "Sharding and merging").
func questionShard(id string, n int) int {
	h := hashid.Sum([]byte(id))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}

// validRunID is the shape of a run id: 1-128 letters, digits, '.', '_'
// or '-', starting with a letter or digit (runlog.CheckID's rule).
func validRunID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' || id[0] == '_' || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
