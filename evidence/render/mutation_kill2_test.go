package render

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
)

// calcVectors are the edge formulas of testdata/calc_vectors.json.
type calcVectors struct {
	Calc []struct {
		In    string `json:"in"`
		Value string `json:"value"`
		Err   bool   `json:"err"`
	} `json:"calc"`
	Same []struct {
		A    float64 `json:"a"`
		B    float64 `json:"b"`
		Same bool    `json:"same"`
	} `json:"same"`
}

func readCalcVectors(t *testing.T) calcVectors {
	t.Helper()
	b, err := os.ReadFile("testdata/calc_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v calcVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCalcVectorsGo holds Calc and SameValue to the golden vectors a
// forged report would probe: the decimals bound of round (15 is allowed,
// 16 is not), the sign of a rounded zero (round(0) is 0, not -0: the page
// would show "-0"), a formula cut off after an operator, a long flat
// formula whose depth must not add up, and the tolerance of SameValue,
// which decides whether a recorded metric matches its recomputation.
func TestCalcVectorsGo(t *testing.T) {
	v := readCalcVectors(t)
	for _, c := range v.Calc {
		got, err := Calc(c.In)
		if c.Err {
			if err == nil {
				t.Errorf("Calc(%.40q) = %v, want an error", c.In, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("Calc(%.40q): %v", c.In, err)
			continue
		}
		if s := strconv.FormatFloat(got, 'g', -1, 64); s != c.Value {
			t.Errorf("Calc(%.40q) = %s, want %s", c.In, s, c.Value)
		}
	}
	for _, c := range v.Same {
		if got := SameValue(c.A, c.B); got != c.Same {
			t.Errorf("SameValue(%v, %v) = %v, want %v", c.A, c.B, got, c.Same)
		}
	}
}

// TestCalcVectorsJavaScript runs the same vectors through the browser
// twins (calc, sameValue in assets/report.js) under node: the bundle's
// verifier recomputes metrics with them, so a vector the two disagree on
// is a report one verifier accepts and the other refuses.
func TestCalcVectorsJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; the browser tests cover the same code")
	}
	readCalcVectors(t) // the file must parse for Go too
	script := `const AL = require(process.argv[2]); const v = require(process.argv[3]); let bad = 0;
for (const c of v.calc) { let got, e = false; try { got = AL.calc(c.in); } catch (x) { e = true; }
  if (e !== !!c.err || (!e && !Object.is(got, Number(c.value)))) { bad++; console.log("calc", JSON.stringify(c.in).slice(0, 40), got, e, "want", c.value, !!c.err); } }
for (const s of v.same) { const got = AL.sameValue(s.a, s.b); if (got !== s.same) { bad++; console.log("sameValue", s.a, s.b, got); } }
process.exit(bad ? 1 : 0);`
	sp := filepath.Join(t.TempDir(), "vectors.js")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	js, _ := filepath.Abs("assets/report.js")
	vec, _ := filepath.Abs("testdata/calc_vectors.json")
	if b, err := exec.Command(node, sp, js, vec).CombinedOutput(); err != nil {
		t.Fatalf("the JavaScript twins disagree with the vectors: %v\n%s", err, b)
	}
}

// TestCalcErrorsNameTheCulprit: a forged formula is refused with the byte
// that stops it, and a formula cut off after an operator says so rather
// than failing on a value it never read.
func TestCalcErrorsNameTheCulprit(t *testing.T) {
	for f, want := range map[string]string{
		"1 2":   `unexpected "2" at offset 2`,
		"1 + )": `unexpected ")" at offset 4`,
		"2 *":   "ends too early",
		"2 * )": `unexpected ")"`,
		"2 - )": `unexpected ")"`,
	} {
		_, err := Calc(f)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Calc(%q) = %v, want an error saying %s", f, err, want)
		}
	}
}

// memStore is a content-addressed map standing in for the run's store.
type memStore map[hashid.ID][]byte

func (m memStore) put(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	id := hashid.Sum(b)
	m[id] = b
	return id.String()
}

var errGone = errors.New("artifact gone from the store")

func (m memStore) get(id hashid.ID) ([]byte, error) {
	if b, ok := m[id]; ok {
		return b, nil
	}
	return nil, errGone
}

// ev is one event of a hand-built log.
type ev struct {
	typ, node string
	data      map[string]any
}

// chainOf links events into a hash chain of run "r".
func chainOf(t *testing.T, es ...ev) []chain.Event {
	t.Helper()
	var out []chain.Event
	var prev *chain.Event
	for i, e := range es {
		x, err := chain.NewEvent(prev, "r", int64(i+1), time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), e.typ, e.node, e.data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
		prev = &out[len(out)-1]
	}
	return out
}

// nullSnapshot is a query snapshot with one NULL cell.
func nullSnapshot() *evidence.Snapshot {
	return &evidence.Snapshot{ID: "Q1", Node: "q", Tool: "sql", Source: "db", SQL: "select region, amount from t",
		Columns: []string{"region", "amount"}, Types: []string{evidence.TypeText, evidence.TypeInteger},
		Rows: [][]any{{"north", nil}, {"south", 7}}, RowCap: 100}
}

// TestLoadForgerUnknownEvidenceKind: a log that adds evidence of a kind
// the report cannot show must not load as a report without it.
func TestLoadForgerUnknownEvidenceKind(t *testing.T) {
	st := memStore{}
	art := st.put(t, nullSnapshot())
	evs := chainOf(t,
		ev{chain.TypeRunStarted, "", map[string]any{"plan": "b3:plan"}},
		ev{TypeEvidenceAdded, "q", map[string]any{"id": "Q1", "kind": "rumour", "artifact": art}},
		ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
	)
	d, err := Load(evs, st.get)
	if err == nil || !strings.Contains(err.Error(), `unknown kind "rumour"`) {
		t.Fatalf("Load = %v, %v; want the unknown kind refused", d, err)
	}
}

// TestLoadForgerMissingArtifact deletes each evidence artifact from the
// store in turn: the load fails and the error is the store's (the
// artifact is missing), not a decoding error about bytes never read.
func TestLoadForgerMissingArtifact(t *testing.T) {
	st := memStore{}
	snap := st.put(t, nullSnapshot())
	metrics := st.put(t, evidence.MetricSet{})
	report := st.put(t, evidence.ReportArtifact{})
	evs := chainOf(t,
		ev{chain.TypeRunStarted, "", map[string]any{"plan": "b3:plan"}},
		ev{TypeEvidenceAdded, "q", map[string]any{"id": "Q1", "kind": evidence.KindQuery, "artifact": snap}},
		ev{chain.TypeNodeFinished, "m", map[string]any{KeyMetrics: metrics}},
		ev{chain.TypeNodeFinished, "w", map[string]any{KeyReport: report}},
		ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
	)
	if _, err := Load(evs, st.get); err != nil {
		t.Fatalf("the complete store: %v", err)
	}
	for _, gone := range []string{snap, metrics, report} {
		h, _ := hashid.Parse(gone)
		partial := memStore{}
		for k, v := range st {
			if k != h {
				partial[k] = v
			}
		}
		if _, err := Load(evs, partial.get); !errors.Is(err, errGone) {
			t.Errorf("artifact %s deleted: Load = %v, want the store's error", h.Short(), err)
		}
	}
}

// TestLoadResumedPlan: the plan a report names is the one the run is
// sealed under, as RunPlan says: a run.resumed naming a plan replaces the
// one run.started named, a run.resumed without a plan keeps it.
func TestLoadResumedPlan(t *testing.T) {
	for _, c := range []struct {
		name    string
		resumed map[string]any
		want    string
	}{
		{"resumed under a new plan", map[string]any{"plan": "b3:second"}, "b3:second"},
		{"resumed without a plan", map[string]any{}, "b3:first"},
	} {
		evs := chainOf(t,
			ev{chain.TypeRunStarted, "", map[string]any{"plan": "b3:first"}},
			ev{TypeRunResumed, "", c.resumed},
			ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
		)
		d, err := Load(evs, memStore{}.get)
		if err != nil {
			t.Fatal(err)
		}
		if rp, _ := RunPlan(evs); d.Meta.Plan != c.want || rp != c.want {
			t.Errorf("%s: Meta.Plan %q, RunPlan %q; want %q", c.name, d.Meta.Plan, rp, c.want)
		}
	}
}

// TestDataOfARunWithoutEvidence: the data block the browser verifier reads
// lists an empty ledger as [], never null, so that a page of a run without
// evidence re-renders instead of failing on a missing list.
func TestDataOfARunWithoutEvidence(t *testing.T) {
	evs := chainOf(t,
		ev{chain.TypeRunStarted, "", map[string]any{"plan": "b3:plan"}},
		ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
	)
	d, err := Load(evs, memStore{}.get)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Data()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ledger", "snapshots", "hits", "metricsets", "reports", "texts"} {
		if string(m[k]) != "[]" {
			t.Errorf("%s = %s, want []", k, m[k])
		}
	}
	if !strings.Contains(string(Body(d)), "This run recorded no evidence.") {
		t.Error("a run without evidence does not say so")
	}
}

// TestBodyOneSnapshotAndAnswer renders a run with exactly one piece of
// evidence, holding a NULL cell, and one model answer: the page must not
// claim there is no evidence, must mark the NULL cell as null (not as an
// empty string), and must show the answer inside its element.
func TestBodyOneSnapshotAndAnswer(t *testing.T) {
	st := memStore{}
	art := st.put(t, nullSnapshot())
	hit := st.put(t, evidence.KnowledgeHit{ID: "K1", Node: "kb", Path: "notes.md", Text: "north leads"})
	evs := chainOf(t,
		ev{chain.TypeRunStarted, "", map[string]any{"plan": "b3:plan"}},
		ev{TypeEvidenceAdded, "q", map[string]any{"id": "Q1", "kind": evidence.KindQuery, "artifact": art}},
		ev{chain.TypeNodeFinished, "ask", map[string]any{"output": map[string]any{"text": "north leads", keyModel: "m1"}}},
		ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
	)
	d, err := Load(evs, st.get)
	if err != nil {
		t.Fatal(err)
	}
	body := string(Body(d))
	if strings.Contains(body, "recorded no evidence") {
		t.Error("a run with one snapshot says it recorded no evidence")
	}
	if n := strings.Count(body, "al-null"); n != 1 || !strings.Contains(body, `class="al-ref al-null"`) {
		t.Errorf("%d cells marked null, want the one NULL cell:\n%s", n, body)
	}
	// one snapshot and one hit: still evidence
	evs = chainOf(t,
		ev{chain.TypeRunStarted, "", map[string]any{"plan": "b3:plan"}},
		ev{TypeEvidenceAdded, "q", map[string]any{"id": "Q1", "kind": evidence.KindQuery, "artifact": art}},
		ev{TypeEvidenceAdded, "kb", map[string]any{"id": "K1", "kind": evidence.KindKnowledge, "artifact": hit}},
		ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
	)
	d2, err := Load(evs, st.get)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(Body(d2)), "recorded no evidence") {
		t.Error("a run with a snapshot and a hit says it recorded no evidence")
	}
	if !strings.Contains(body, `data-k="x" data-i="0">north leads</div>`) {
		t.Errorf("the model answer is not inside its element:\n%s", body)
	}
}

// TestSplitTextForgedViolations: violations a forged report records at
// the same offset, or at the very start of the text: the first recorded
// one marks the span (the page's renderer keeps the same one), and no
// empty text part appears before a mark.
func TestSplitTextForgedViolations(t *testing.T) {
	src := "sales rose 12% in the north"
	vs := []evidence.Violation{
		{Start: 0, End: 5, Kind: "bare_number", Message: "first"},
		{Start: 0, End: 10, Kind: "unsupported", Message: "second"},
		{Start: 11, End: 14, Kind: "bare_number", Message: "third"},
		{Start: 11, End: 20, Kind: "uncited_claim", Message: "fourth"},
	}
	parts := splitText(src, 0, len(src), vs)
	var got []string
	for _, p := range parts {
		if p.Text == "" {
			t.Errorf("an empty part at %d", p.Start)
		}
		got = append(got, p.Text+"|"+p.Mark)
	}
	want := []string{"sales|bare_number: first", " rose |", "12%|bare_number: third", " in the north|"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRoundHalfAwayZero: rounding zero keeps its sign positive, so that
// a metric of 0 never reads "-0".
func TestRoundHalfAwayZero(t *testing.T) {
	for d := 0; d <= 3; d++ {
		if r := RoundHalfAway(0, d); r != 0 || math.Signbit(r) {
			t.Errorf("RoundHalfAway(0, %d) = %v (sign bit %v)", d, r, math.Signbit(r))
		}
	}
}

// TestLoadForgerInvalidSnapshot stores a snapshot that decodes but breaks
// its own shape (more types than columns, a row too short, a type the
// report does not know): the load refuses it instead of rendering it.
func TestLoadForgerInvalidSnapshot(t *testing.T) {
	for name, forge := range map[string]func(*evidence.Snapshot){
		"types": func(s *evidence.Snapshot) { s.Types = append(s.Types, evidence.TypeText) },
		"row":   func(s *evidence.Snapshot) { s.Rows[1] = s.Rows[1][:1] },
		"type":  func(s *evidence.Snapshot) { s.Types[0] = "varchar" },
		"id":    func(s *evidence.Snapshot) { s.ID = "Q2" },
	} {
		st := memStore{}
		s := nullSnapshot()
		forge(s)
		art := st.put(t, s)
		evs := chainOf(t,
			ev{chain.TypeRunStarted, "", map[string]any{"plan": "b3:plan"}},
			ev{TypeEvidenceAdded, "q", map[string]any{"id": "Q1", "kind": evidence.KindQuery, "artifact": art}},
			ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
		)
		if d, err := Load(evs, st.get); err == nil || !strings.HasPrefix(err.Error(), "evidence Q1: ") {
			t.Errorf("%s: Load = %v, %v; want the snapshot refused", name, d, err)
		}
	}
}

// TestLoadRunNamesTheSeal: a report loaded with its run id names the seal
// hash chain.ComputeSeal gives for the sealed prefix under its plan; one
// loaded without the id, or from a log that does not seal, names none.
func TestLoadRunNamesTheSeal(t *testing.T) {
	plan := hashid.Sum([]byte("plan")).String()
	evs := chainOf(t,
		ev{chain.TypeRunStarted, "", map[string]any{"plan": plan}},
		ev{chain.TypeRunFinished, "", map[string]any{"status": "ok"}},
		ev{TypeEvidenceAdded, "late", map[string]any{"id": "Q9"}}, // after the seal: ignored
	)
	s, err := chain.ComputeSeal("r", plan, evs[:2])
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Hash()
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadRun("r", evs, memStore{}.get)
	if err != nil {
		t.Fatal(err)
	}
	if d.Meta.Seal != want.String() || d.Meta.Run != "r" {
		t.Errorf("LoadRun: run %q seal %q, want %s", d.Meta.Run, d.Meta.Seal, want)
	}
	if d, err := Load(evs, memStore{}.get); err != nil || d.Meta.Seal != "" {
		t.Errorf("Load without a run id: seal %q, %v", d.Meta.Seal, err)
	}
	if d, err := LoadRun("r", evs[:1], memStore{}.get); err != nil || d.Meta.Seal != "" {
		t.Errorf("an unsealed log: seal %q, %v", d.Meta.Seal, err)
	}
}
