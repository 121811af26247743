package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/retrieve"
)

// retrievalFloors are the least quality the retrieve node may have on the
// labelled corpus (docs/performance.md#retrieval-quality): a change to
// tokens, stemming, the embedding or the scoring that ranks worse fails
// here. They sit a little under the measured figures, so that an
// equivalent change passes and a real loss does not; the figures before
// stemming and the weighted embedding were below several of them.
var retrievalFloors = []struct {
	alpha       float64
	kind        string
	recall, mrr float64
}{
	{0, "all", 0.93, 0.88},   // keyword
	{0.5, "all", 0.97, 0.89}, // the default mix
	{1, "all", 0.92, 0.87},   // vector
	{0.5, "mixed", 0.95, 0.90},
	{0.5, "inflection", 0.95, 0.95},
	{0.5, "code", 1, 1},
	{0.5, "zh", 0.90, 0.90},
	{1, "paraphrase", 0.75, 0.70},
}

func TestRetrievalQualityFloor(t *testing.T) {
	set, err := LoadRetrievalSet(filepath.Join("..", RetrievalDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Docs) < 100 || len(set.Queries) < 40 {
		t.Fatalf("the corpus shrank: %d passages, %d queries", len(set.Docs), len(set.Queries))
	}
	ix := retrieve.Build(set.Docs, retrieve.Options{})
	for _, f := range retrievalFloors {
		s := ScoreRetrieval(IndexSearcher(ix, f.alpha), set.Queries)[f.kind]
		if s.Queries == 0 {
			t.Errorf("no %s queries", f.kind)
			continue
		}
		if s.RecallAt5 < f.recall || s.MRR < f.mrr {
			t.Errorf("alpha %g, %s queries: recall@5 %.3f (floor %.2f), MRR %.3f (floor %.2f)", f.alpha, f.kind, s.RecallAt5, f.recall, s.MRR, f.mrr)
		}
	}
	// The query that needs both the invoice code and the refund wording
	// finds the passage holding both first at the default mix, among
	// decoys holding one of them (the invoice, the refund how-to, the
	// credit note).
	hits := ix.Search("refunded INV-7781 how do I get my money back", 3, retrieve.DefaultAlpha)
	if len(hits) == 0 || hits[0].Path != "billing/inv-7781-refund.md" {
		t.Errorf("code and paraphrase: first hit %v", hits)
	}
}

// TestScoreRetrievalArithmetic checks recall@5 and MRR on a ranking made
// up by hand, so a broken measure cannot pass for a good ranking.
func TestScoreRetrievalArithmetic(t *testing.T) {
	rank := map[string][]string{
		"a": {"x", "r1", "y", "z", "w", "r2"}, // first relevant at 2; one of two in the top 5
		"b": {"r3"},                           // first at 1; all found
		"c": {"x", "y"},                       // none
	}
	qs := []RetrievalQuery{
		{Kind: "k1", Query: "a", Relevant: []string{"r1", "r2"}},
		{Kind: "k1", Query: "b", Relevant: []string{"r3"}},
		{Kind: "k2", Query: "c", Relevant: []string{"r4"}},
	}
	got := ScoreRetrieval(func(q string, k int) []string { return rank[q] }, qs)
	if a := got["all"]; a.Queries != 3 || a.RecallAt5 != 0.5 || a.MRR != 0.5 {
		t.Errorf("all = %+v, want recall 0.5, MRR 0.5", a)
	}
	if k := got["k1"]; k.RecallAt5 != 0.75 || k.MRR != 0.75 {
		t.Errorf("k1 = %+v", k)
	}
	if k := got["k2"]; k.RecallAt5 != 0 || k.MRR != 0 {
		t.Errorf("k2 = %+v", k)
	}
}

// TestLoadRetrievalSetMislabelled: a label naming a passage the corpus
// does not hold is refused, not scored as a miss.
func TestLoadRetrievalSetMislabelled(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "corpus", "a.md"), []byte("refunds\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"- {kind: code, query: refund, relevant: [b.md]}\n",
		"- {kind: code, query: refund}\n",
		"- {kind: code, query: [x], relevant: [a.md]}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, "queries.yml"), []byte(q), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadRetrievalSet(dir); err == nil || !strings.Contains(err.Error(), "queries.yml") {
			t.Errorf("%q: err = %v", q, err)
		}
	}
}
