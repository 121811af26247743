package run

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/engine"
)

// TestRandomRunIDCollisionIsDrawnAgain plays thousands of runs started in
// one second (an evaluation) meeting an id already taken: the second run
// draws again and succeeds instead of failing on the taken directory.
func TestRandomRunIDCollisionIsDrawnAgain(t *testing.T) {
	p, h := compileFlow(t, "testdata/review.yml")
	fixed := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	draws := 0
	idClock = func() time.Time { return fixed }
	idRand = func(b []byte) (int, error) {
		draws++
		for i := range b {
			b[i] = 0
			if draws > 2 {
				b[i] = byte(draws)
			}
		}
		return len(b), nil
	}
	t.Cleanup(func() { idRand, idClock = defaultIDRand, defaultIDClock })
	dir := t.TempDir()
	var ids []string
	for i := 0; i < 2; i++ {
		out, err := Start(context.Background(), Options{DataDir: dir, Plan: p, PlanHash: h, Source: "testdata/review.yml", Seed: 3})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if out.Status != engine.StatusSucceeded {
			t.Fatalf("run %d: %s %s", i, out.Status, out.Error)
		}
		ids = append(ids, out.RunID)
	}
	if ids[0] != "20261201T120000Z-000000" || ids[1] == ids[0] || !strings.HasPrefix(ids[1], "20261201T120000Z-") {
		t.Errorf("ids %v: the second run must draw a new suffix", ids)
	}
	if draws != 3 {
		t.Errorf("%d draws, want 3 (one per run, one again after the collision)", draws)
	}
}

// TestCaseEntersTheDerivedRunID: under a fixed clock two evaluation cases
// with the same plan, inputs, seed and provider get different ids, while a
// plain run keeps the id it always had.
func TestCaseEntersTheDerivedRunID(t *testing.T) {
	_, h := compileFlow(t, "testdata/review.yml")
	in := map[string]any{"q": "same"}
	plain, err := RunID(&epoch, h, in, 1, "mock", "", KindExploratory)
	if err != nil {
		t.Fatal(err)
	}
	none, _ := runID(&epoch, h, in, 1, "mock", "", KindExploratory, "")
	a, _ := runID(&epoch, h, in, 1, "mock", "", KindExploratory, "q1/mock/0")
	b, _ := runID(&epoch, h, in, 1, "mock", "", KindExploratory, "q2/mock/0")
	if plain != none {
		t.Errorf("a plain run's derived id changed: %s vs %s", plain, none)
	}
	if a == b || a == plain || b == plain {
		t.Errorf("case ids must differ from each other and from the plain id: %s %s %s", a, b, plain)
	}
}

// TestDerivedRunIDIsTheHashOfItsFields: the run id written field by field
// is the one of the canonical JSON of its fields as a map (what ids were
// derived from before, so that sealed runs keep their ids), with and
// without a case, for inputs of every shape.
func TestDerivedRunIDIsTheHashOfItsFields(t *testing.T) {
	h := hashid.Sum([]byte("plan"))
	for _, inputs := range []map[string]any{nil, {}, {"q": "é\n<&>", "n": 1.5, "list": []any{1, nil}, "o": map[string]any{"b": 1, "a": true}}} {
		for _, c := range []string{"", "q1/v/0", "q\"1"} {
			fields := map[string]any{"plan": h.String(), "inputs": inputs, "seed": int64(-7), "provider": "script:x.yml", "model": "m", "kind": KindExploratory}
			if c != "" {
				fields["case"] = c
			}
			want, err := canon.Marshal(fields)
			if err != nil {
				t.Fatal(err)
			}
			in, err := canon.Marshal(inputs)
			if err != nil {
				t.Fatal(err)
			}
			sum := hashid.Sum(want)
			if got := derivedRunID(h, in, -7, "script:x.yml", "m", KindExploratory, c); got != hex.EncodeToString(sum[:8]) {
				t.Errorf("inputs %v, case %q: id %s, want %x", inputs, c, got, sum[:8])
			}
		}
	}
}
