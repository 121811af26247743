package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/retrieve"
)

func TestRetrieveAndQuote(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"refunds.md":  "# Refunds\n\nRefunds are issued within fourteen days of approval.\n",
		"shipping.md": "# Shipping\n\nStandard shipping takes three to five working days.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk := func() *plan.Plan {
		return mkPlan([]plan.Node{
			nd("search", "retrieve", "from", "notes", "query", "{{ input.q }}", "top_k", 2, "alpha", 0.5),
			nd("answer", "report", "prompt", "Answer: {{ input.q }}", "on_violation", "fail", "max_repairs", 0),
		}, edges("search -> answer"))
	}
	base := func(c *Config) { c.BaseDir = dir }
	good := "Refunds take a while: [[q:K1|Refunds are issued within fourteen days]]."
	p := mk()
	p.Inputs = map[string]plan.Input{"q": {Type: "string"}}
	res, rec := run(t, p, map[string]any{"q": "how long do refunds take"}, base, withModel(scripted([]string{good}, "")))
	if res.Status != StatusSucceeded {
		t.Fatal(res.Err)
	}
	d := finishedData(t, rec, "search")
	hits := d["output"].(map[string]any)["hits"].([]any)
	first := hits[0].(map[string]any)
	if first["id"] != "K1" || first["path"] != "refunds.md" {
		t.Errorf("hits %v", hits)
	}
	list := artifact[[]evidence.KnowledgeHit](t, rec, d["hits_artifact"].(string))
	if len(list) != len(hits) || !strings.Contains(list[0].Text, "fourteen days") || list[0].Node != "search" {
		t.Errorf("hits artifact %+v", list)
	}
	if got := len(rec.ofType(EvEvidenceAdded)); got != len(hits) {
		t.Errorf("%d evidence.added for %d hits", got, len(hits))
	}
	out := finishedData(t, rec, "answer")["output"].(map[string]any)
	if out["text"] != "Refunds take a while: \u201cRefunds are issued within fourteen days\u201d." {
		t.Errorf("text %q", out["text"])
	}
	bad := "Refunds take a while: [[q:K1|Refunds are issued within ten days]]."
	res, _ = run(t, p, map[string]any{"q": "how long do refunds take"}, base, withModel(scripted([]string{bad}, "")))
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "verbatim") {
		t.Errorf("misquote: %s %v", res.Status, res.Err)
	}
	res, _ = run(t, p, map[string]any{"q": "x"}, func(c *Config) { c.BaseDir = filepath.Join(dir, "nowhere") })
	if res.Status != StatusFailed || !strings.Contains(res.Err.Error(), "notes") {
		t.Errorf("missing folder: %s %v", res.Status, res.Err)
	}
}

// TestRetrieveAlphaOfPlanCompiledBeforeTheFlip runs a plan written before
// alpha was reversed (no scoring mark): its alpha still weights BM25, so
// "alpha 0" there is pure vector and finds a passage by a part of a word,
// exactly as alpha 1 does in a plan that carries the mark.
func TestRetrieveAlphaOfPlanCompiledBeforeTheFlip(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, "ship.md"), []byte("Standard shipping takes three to five working days.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hitsOf := func(alpha float64, marked bool) []any {
		t.Helper()
		args := []any{"from", "notes", "query", "shippin", "alpha", alpha}
		if marked {
			args = append(args, "scoring", retrieve.Scoring)
		}
		p := mkPlan([]plan.Node{nd("search", "retrieve", args...)}, nil)
		res, rec := run(t, p, nil, func(c *Config) { c.BaseDir = dir })
		if res.Status != StatusSucceeded {
			t.Fatal(res.Err)
		}
		return finishedData(t, rec, "search")["output"].(map[string]any)["hits"].([]any)
	}
	if h := hitsOf(0, true); len(h) != 0 {
		t.Errorf("alpha 0 (pure keyword) found %v for a word the folder does not hold", h)
	}
	if h := hitsOf(1, false); len(h) != 0 {
		t.Errorf("unmarked alpha 1 (old pure keyword) found %v", h)
	}
	vec, old := hitsOf(1, true), hitsOf(0, false)
	if len(vec) != 1 || !reflect.DeepEqual(vec, old) {
		t.Errorf("pure vector: marked alpha 1 gave %v, unmarked alpha 0 gave %v", vec, old)
	}
}
