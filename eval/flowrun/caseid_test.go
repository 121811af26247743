package flowrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/eval"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/run/sources"
)

// twinSuite is testdata/qa's suite with two more questions that ask
// exactly what an earlier one asks: under a fixed clock their runs would
// derive the same id unless the case enters the derivation.
func twinSuite(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "qa")
	dir := t.TempDir()
	for _, f := range []string{"flow.yml", "answers.yml", "data/sales.csv"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(src, "sales.eval.yml"))
	if err != nil {
		t.Fatal(err)
	}
	twins := `  - id: total-revenue-again
    inputs: {question: "What was total revenue in 2026-W47?"}
    expect:
      sql: "SELECT SUM(amount) FROM sales WHERE week = '2026-W47'"
  - id: total-revenue-third
    inputs: {question: "What was total revenue in 2026-W47?"}
    expect:
      sql: "SELECT SUM(amount) FROM sales WHERE week = '2026-W47'"
`
	path := filepath.Join(dir, "twins.eval.yml")
	if err := os.WriteFile(path, append(b, twins...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// evaluateTwins runs the twin suite (or one shard of it) in a fresh data
// dir under a fixed clock and returns the result.
func evaluateTwins(t *testing.T, path string, shard *eval.Shard) *eval.Result {
	t.Helper()
	return evaluateTwinsWith(t, path, shard, nil)
}

// evaluateTwinsWith is evaluateTwins with the cases' sources built once in
// cache (nil: every run builds its own).
func evaluateTwinsWith(t *testing.T, path string, shard *eval.Shard, cache *sources.Cache) *eval.Result {
	t.Helper()
	s, p, h, l := suite.Load(path, eval.CompileFlow)
	if s == nil {
		t.Fatal(l)
	}
	epoch := time.Unix(1700000000, 0).UTC()
	data := t.TempDir()
	dir := filepath.Dir(path)
	r := &Runner{Plan: p, PlanHash: h, Flow: suite.FlowPath(s), SuiteDir: dir, DataDir: data, Epoch: &epoch, Sources: cache}
	if err := r.Prepare(s.Variants); err != nil {
		t.Fatal(err)
	}
	o, err := eval.NewCachedSourceOracle(context.Background(), p, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	res, err := eval.Evaluate(context.Background(), eval.Options{Suite: s, Plan: p, PlanHash: h, Runner: r, Oracle: o, DataDir: data, Epoch: &epoch, Shard: shard, Parallel: 3})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTwinQuestionsKeepTheEvalSealReproducible plays a suite author who asks
// the same question twice: under SOURCE_DATE_EPOCH every case still gets an
// id of its own (not a random fallback with the real clock), so two
// evaluations in fresh data dirs, and the same suite run in three shards,
// give the same case seals and the same evaluation seal.
func TestTwinQuestionsKeepTheEvalSealReproducible(t *testing.T) {
	path := twinSuite(t)
	a := evaluateTwins(t, path, nil)
	b := evaluateTwins(t, path, nil)
	if a.Seal == "" || a.Seal != b.Seal {
		t.Fatalf("evaluation seals differ under a fixed clock: %q vs %q", a.Seal, b.Seal)
	}
	runs := map[string]string{}
	seals := map[eval.Key]string{}
	for _, c := range a.Cases {
		if prev, ok := runs[c.Run]; ok {
			t.Errorf("cases %s and %s share run id %s", prev, c.Question, c.Run)
		}
		runs[c.Run] = c.Question
		if strings.Contains(c.Run, "T") {
			t.Errorf("case %s fell back to a clock-based id %s", c.Question, c.Run)
		}
		seals[eval.Key{Question: c.Question, Variant: c.Variant, Repeat: c.Repeat}] = c.Seal
	}
	if len(a.Cases) != 5 {
		t.Fatalf("%d cases, want 5", len(a.Cases))
	}
	sharded := 0
	for i := 1; i <= 3; i++ {
		part := evaluateTwins(t, path, &eval.Shard{Index: i, Count: 3})
		for _, c := range part.Cases {
			sharded++
			k := eval.Key{Question: c.Question, Variant: c.Variant, Repeat: c.Repeat}
			if seals[k] == "" || seals[k] != c.Seal {
				t.Errorf("case %v: seal %q in a shard, %q unsharded", k, c.Seal, seals[k])
			}
		}
	}
	// A shard evaluated twice in fresh data dirs seals the same way.
	one, again := evaluateTwins(t, path, &eval.Shard{Index: 2, Count: 3}), evaluateTwins(t, path, &eval.Shard{Index: 2, Count: 3})
	if one.Seal == "" || one.Seal != again.Seal {
		t.Errorf("shard 2/3 seals differ: %q vs %q", one.Seal, again.Seal)
	}
	if sharded != len(a.Cases) {
		t.Errorf("the shards ran %d cases, the whole suite %d", sharded, len(a.Cases))
	}
}

// TestSharedSourcesSealLikeStandaloneRuns checks that building the data
// sources once for the whole evaluation changes nothing a case seals: the
// source hashes, the query snapshots and with them every case's seal and
// the evaluation's seal are those of runs that each built their own.
func TestSharedSourcesSealLikeStandaloneRuns(t *testing.T) {
	path := twinSuite(t)
	alone := evaluateTwins(t, path, nil)
	cache := sources.NewCache()
	defer cache.Close()
	shared := evaluateTwinsWith(t, path, nil, cache)
	if alone.Seal == "" || alone.Seal != shared.Seal {
		t.Fatalf("evaluation seal %q with shared sources, %q with a build per run", shared.Seal, alone.Seal)
	}
	for i, c := range shared.Cases {
		if c.Seal != alone.Cases[i].Seal || c.Address != alone.Cases[i].Address {
			t.Errorf("case %s: seal %s / address %s shared, %s / %s alone", c.Question, c.Seal, c.Address, alone.Cases[i].Seal, alone.Cases[i].Address)
		}
	}
}
