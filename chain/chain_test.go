package chain

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// buildChain makes a small, realistic run log.
func buildChain(t testing.TB, runID string) []Event {
	t.Helper()
	specs := []struct {
		typ, node string
		data      any
	}{
		{TypeRunStarted, "", map[string]any{"plan": "b3:" + strings.Repeat("0", 64)}},
		{TypeNodeStarted, "pull", nil},
		{TypeToolCalled, "pull", map[string]any{"tool": "db_query__sales"}},
		{TypeToolResult, "pull", map[string]any{"result_artifact": "b3:" + strings.Repeat("a", 64), "rows": 3}},
		{TypeNodeFinished, "pull", map[string]any{"output": map[string]any{"artifacts": []any{"b3:" + strings.Repeat("b", 64)}}}},
		{TypeRunFinished, "", map[string]any{"status": "succeeded"}},
	}
	var evs []Event
	var prev *Event
	for i, s := range specs {
		e, err := NewEvent(prev, runID, int64(i+1), t0.Add(time.Duration(i)*time.Millisecond), s.typ, s.node, s.data)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
		prev = &evs[len(evs)-1]
	}
	return evs
}

func TestNewEventLinksAndHashes(t *testing.T) {
	evs := buildChain(t, "r1")
	if ps := VerifyChain("r1", evs); len(ps) != 0 {
		t.Fatalf("intact chain has problems: %v", ps)
	}
	if evs[0].Prev != Genesis("r1").String() {
		t.Errorf("first prev = %s, want genesis", evs[0].Prev)
	}
	if evs[1].Node != "pull" || evs[0].Node != "" {
		t.Errorf("nodes: %q %q", evs[0].Node, evs[1].Node)
	}
	if evs[1].Data != nil {
		t.Errorf("nil data encoded as %s", evs[1].Data)
	}
	if evs[0].Time != "2026-11-29T12:00:00.000000000Z" {
		t.Errorf("time = %s", evs[0].Time)
	}
	// The same chain under another run id does not verify: events cannot be
	// moved between runs.
	if ps := VerifyChain("r2", evs); len(ps) != 1 || ps[0].Seq != 1 || !strings.Contains(ps[0].Message, "genesis") {
		t.Errorf("chain under another run id: %v", ps)
	}
}

// TestHashIsOverLineWithoutHash checks the documented rule a verifier in
// another language uses: parse the line, delete "hash", canonicalise, hash.
func TestHashIsOverLineWithoutHash(t *testing.T) {
	for _, e := range buildChain(t, "r1") {
		line, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "hash")
		h, err := e.ComputeHash()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m)
		if got := hashOfCanonical(t, b); got != h.String() || got != e.Hash {
			t.Errorf("seq %d: map-based hash %s, ComputeHash %s, stored %s", e.Seq, got, h, e.Hash)
		}
	}
}

func TestNewEventErrors(t *testing.T) {
	evs := buildChain(t, "r1")
	tests := []struct {
		name string
		prev *Event
		seq  int64
		typ  string
		data any
		want string
	}{
		{"first must be 1", nil, 2, TypeRunStarted, nil, "seq must be 1"},
		{"must follow", &evs[1], 4, TypeNodeStarted, nil, "does not follow"},
		{"empty type", nil, 1, "", nil, "empty type"},
		{"raw bytes", nil, 1, TypeRunStarted, []byte("x"), "PutArtifact"},
		{"bad raw json", nil, 1, TypeRunStarted, json.RawMessage("{"), "data"},
		{"unencodable", nil, 1, TypeRunStarted, map[string]any{"f": func() {}}, "data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewEvent(tt.prev, "r1", tt.seq, t0, tt.typ, "", tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestVerifyChainTamper(t *testing.T) {
	tests := []struct {
		name   string
		tamper func([]Event) []Event
		seqs   []int64  // seqs that must be named
		words  []string // words that must appear in some message
	}{
		{"edit data", func(e []Event) []Event { e[3].Data = json.RawMessage(`{"rows":4}`); return e }, []int64{4}, []string{"bad hash"}},
		{"edit time", func(e []Event) []Event { e[2].Time = "2026-11-29T12:00:09.000000000Z"; return e }, []int64{3}, []string{"bad hash"}},
		{"edit node", func(e []Event) []Event { e[1].Node = "kpi"; return e }, []int64{2}, []string{"bad hash"}},
		{"edit type", func(e []Event) []Event { e[4].Type = TypeNodeFailed; return e }, []int64{5}, []string{"bad hash"}},
		{"bad time format", func(e []Event) []Event { e[2].Time = "yesterday"; return e }, []int64{3}, []string{"RFC 3339"}},
		{"delete", func(e []Event) []Event { return append(e[:2:2], e[3:]...) }, []int64{3, 4}, []string{"missing", "broken link"}},
		{"delete first", func(e []Event) []Event { return e[1:] }, []int64{2}, []string{"first event", "genesis"}},
		{"reorder", func(e []Event) []Event { e[2], e[3] = e[3], e[2]; return e }, []int64{3, 4}, []string{"out of order", "broken link"}},
		{"insert", func(e []Event) []Event {
			x, _ := NewEvent(&e[1], "r1", 3, t0, TypeNodeStarted, "evil", nil)
			return append(e[:2:2], append([]Event{x}, e[2:]...)...)
		}, []int64{3}, []string{"out of order", "broken link"}},
		{"rehashed edit", func(e []Event) []Event {
			// Editing an event and fixing its own hash still breaks the next link.
			e[2].Node = "kpi"
			h, _ := e[2].ComputeHash()
			e[2].Hash = h.String()
			return e
		}, []int64{4}, []string{"broken link"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := tt.tamper(buildChain(t, "r1"))
			ps := VerifyChain("r1", evs)
			if len(ps) == 0 {
				t.Fatal("tampered chain verified")
			}
			all := ""
			for _, p := range ps {
				all += p.String() + "\n"
			}
			for _, s := range tt.seqs {
				found := false
				for _, p := range ps {
					found = found || p.Seq == s
				}
				if !found {
					t.Errorf("no problem names seq %d:\n%s", s, all)
				}
			}
			for _, w := range tt.words {
				if !strings.Contains(all, w) {
					t.Errorf("no problem says %q:\n%s", w, all)
				}
			}
		})
	}
}

func TestVerifyChainEmpty(t *testing.T) {
	if ps := VerifyChain("r", nil); ps != nil {
		t.Fatalf("empty chain: %v", ps)
	}
}

func TestReferencedArtifacts(t *testing.T) {
	a, b, c := "b3:"+strings.Repeat("a", 64), "b3:"+strings.Repeat("b", 64), "b3:"+strings.Repeat("c", 64)
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"plain key", `{"artifact":"` + a + `"}`, []string{a}},
		{"suffix", `{"result_artifact":"` + b + `","x":"` + c + `"}`, []string{b}},
		{"list", `{"artifacts":["` + c + `","` + a + `",7]}`, []string{a, c}},
		{"list suffix", `{"snap_artifacts":["` + b + `"]}`, []string{b}},
		{"nested", `{"out":[{"k":{"artifact":"` + c + `"}}]}`, []string{c}},
		{"nested under key", `{"artifacts":{"artifact":"` + a + `"}}`, []string{a}},
		{"not an id", `{"artifact":"b3:xyz","artifacts":["B3:` + strings.Repeat("a", 64) + `"]}`, []string{}},
		{"uppercase hex ignored", `{"artifact":"b3:` + strings.Repeat("A", 64) + `"}`, []string{}},
		{"key case matters", `{"Artifact":"` + a + `","artifactx":"` + b + `"}`, []string{}},
		{"other keys", `{"note":"` + a + `"}`, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReferencedArtifacts([]Event{{Data: json.RawMessage(tt.data)}, {Data: json.RawMessage(tt.data)}})
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || got == nil {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestComputeSeal(t *testing.T) {
	plan := "b3:" + strings.Repeat("1", 64)
	evs := buildChain(t, "r1")
	s1, err := ComputeSeal("r1", plan, evs)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Head != evs[5].Hash || s1.Seq != 6 || s1.Format != SealFormat || s1.Run != "r1" || s1.Plan != plan {
		t.Errorf("seal = %+v", s1)
	}
	if want := []string{"b3:" + strings.Repeat("a", 64), "b3:" + strings.Repeat("b", 64)}; strings.Join(s1.Artifacts, ",") != strings.Join(want, ",") {
		t.Errorf("artifacts = %v", s1.Artifacts)
	}
	h1, _ := s1.Hash()

	// Deterministic: rebuilding the same log gives the same seal hash.
	s2, _ := ComputeSeal("r1", plan, buildChain(t, "r1"))
	if h2, _ := s2.Hash(); h2 != h1 {
		t.Errorf("seal not deterministic: %s vs %s", h1, h2)
	}
	// Events after run.finished are outside the seal.
	late, _ := NewEvent(&evs[5], "r1", 7, t0, TypeHumanDecided, "gate", map[string]any{"artifact": "b3:" + strings.Repeat("d", 64)})
	s3, err := ComputeSeal("r1", plan, append(evs[:6:6], late))
	if err != nil {
		t.Fatal(err)
	}
	if h3, _ := s3.Hash(); h3 != h1 {
		t.Errorf("an event after run.finished changed the seal")
	}
	// A different plan changes the seal.
	s4, _ := ComputeSeal("r1", "b3:"+strings.Repeat("2", 64), evs)
	if h4, _ := s4.Hash(); h4 == h1 {
		t.Errorf("plan does not affect the seal")
	}
	// Golden value: the seal hash must not change across versions without a
	// format bump, since published seals would stop matching.
	if got, want := h1.String(), goldenSeal; got != want {
		t.Errorf("seal hash changed:\n got %s\nwant %s", got, want)
	}
}

func TestComputeSealErrors(t *testing.T) {
	plan := "b3:" + strings.Repeat("1", 64)
	evs := buildChain(t, "r1")
	if _, err := ComputeSeal("r1", plan, evs[:5]); err == nil || !strings.Contains(err.Error(), "run.finished") {
		t.Errorf("unfinished: %v", err)
	}
	if _, err := ComputeSeal("r1", "sha256:x", evs); err == nil || !strings.Contains(err.Error(), "plan") {
		t.Errorf("bad plan: %v", err)
	}
	evs[2].Node = "evil"
	if _, err := ComputeSeal("r1", plan, evs); err == nil || !strings.Contains(err.Error(), "event 3") {
		t.Errorf("broken chain: %v", err)
	}
}

func TestSealHashEmptyArtifacts(t *testing.T) {
	a, _ := Seal{Format: 1, Run: "r"}.Hash()
	b, _ := Seal{Format: 1, Run: "r", Artifacts: []string{}}.Hash()
	if a != b {
		t.Error("nil and empty artifact lists hash differently")
	}
}

// TestLineMatchesCanon pins the hand-written encoder to canon.Marshal,
// including strings that encoding/json would escape differently.
func TestLineMatchesCanon(t *testing.T) {
	tests := []Event{
		{Seq: 1, Time: "t", Type: "a", Prev: "p", Hash: "h"},
		{Seq: 2, Time: "<&>", Type: "x\u2028y", Node: "é\x01\t\"\\", Prev: "b3:00", Hash: "b3:11", Data: json.RawMessage(`{"b": 1.50, "a": ["<>"]}`)},
		{Seq: 1 << 60, Time: "t", Type: "a", Prev: "p", Hash: "h", Data: json.RawMessage(`null`)},
		{Seq: 3, Time: "t", Type: "a", Node: "bad\xffutf8", Prev: "p", Hash: "h"},
	}
	for _, e := range tests {
		got, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		want, err := canon.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("Line:\n got %s\nwant %s", got, want)
		}
		h, _ := e.ComputeHash()
		m := map[string]any{}
		json.Unmarshal(want, &m)
		delete(m, "hash")
		wb, _ := canon.Marshal(m)
		if h != hashid.Sum(wb) {
			t.Errorf("ComputeHash of seq %d differs from the hash of the canonical map", e.Seq)
		}
	}
}

// TestCanonicalJSONData: data handed over as CanonicalJSON is kept as
// given when it is canonical, written canonically when it is not, and
// refused when it is not JSON; the event's hash is the same as for the
// same value given any other way.
func TestCanonicalJSONData(t *testing.T) {
	want, err := NewEvent(nil, "r", 1, t0, "x", "", map[string]any{"b": 1, "a": "é"})
	if err != nil {
		t.Fatal(err)
	}
	given := CanonicalJSON(`{"a":"é","b":1}`)
	e, err := NewEvent(nil, "r", 1, t0, "x", "", given)
	if err != nil || e.Hash != want.Hash {
		t.Fatalf("canonical data: %v, hash %s want %s", err, e.Hash, want.Hash)
	}
	if &e.Data[0] != &given[0] {
		t.Error("canonical data was copied")
	}
	e, err = NewEvent(nil, "r", 1, t0, "x", "", CanonicalJSON(`{"b": 1, "a":"\u00e9"}`))
	if err != nil || e.Hash != want.Hash {
		t.Fatalf("data not in canonical form: %v, hash %s want %s", err, e.Hash, want.Hash)
	}
	if _, err := NewEvent(nil, "r", 1, t0, "x", "", CanonicalJSON(`{"a":`)); err == nil {
		t.Error("data that is not JSON was accepted")
	}
	for _, none := range []CanonicalJSON{nil, {}} {
		if e, err := NewEvent(nil, "r", 1, t0, "x", "", none); err != nil || e.Data != nil {
			t.Errorf("empty canonical data: %v, data %q; want an event without data", err, e.Data)
		}
	}
	if b, err := json.Marshal(map[string]any{"d": given}); err != nil || string(b) != `{"d":{"a":"é","b":1}}` {
		t.Errorf("CanonicalJSON marshals as %s (%v)", b, err)
	}
}
