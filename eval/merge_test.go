package eval

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestMergeShards(t *testing.T) {
	full, err := Evaluate(context.Background(), fakeOptions(t, &fakeRunner{}))
	if err != nil {
		t.Fatal(err)
	}
	var parts []*Result
	for i := 1; i <= 3; i++ {
		o := fakeOptions(t, &fakeRunner{})
		o.Shard = &Shard{i, 3}
		o.DataDir = t.TempDir()
		r, err := Evaluate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		// Round-trip through JSON as the CLI does.
		b, _ := json.Marshal(r)
		var back Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, &back)
	}
	// Give one shard twice: identical content is harmless.
	m, err := Merge(append(parts, parts[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cases) != len(full.Cases) || len(m.Shards) != 3 {
		t.Fatalf("merged %d cases from %d shards, want %d", len(m.Cases), len(m.Shards), len(full.Cases))
	}
	keys := func(r *Result) string {
		var s []string
		for _, c := range r.Cases {
			s = append(s, c.Question+"/"+c.Variant)
		}
		return strings.Join(s, " ")
	}
	got := map[string]bool{}
	for _, c := range m.Cases {
		got[c.Question+"/"+c.Variant+"/"+string(rune('0'+c.Repeat))] = true
	}
	for _, c := range full.Cases {
		if !got[c.Question+"/"+c.Variant+"/"+string(rune('0'+c.Repeat))] {
			t.Errorf("merged result lacks %s/%s/%d (%s)", c.Question, c.Variant, c.Repeat, keys(m))
		}
	}
	if m.Summary[1].Passed != full.Summary[1].Passed {
		t.Errorf("merged summary %+v, full %+v", m.Summary[1], full.Summary[1])
	}

	// A case whose content was edited no longer matches its address.
	tampered := *parts[0]
	tampered.Cases = append([]CaseResult(nil), parts[0].Cases...)
	if len(tampered.Cases) > 0 {
		tampered.Cases[0].Pass = !tampered.Cases[0].Pass
		if _, err := Merge([]*Result{&tampered}); err == nil || !strings.Contains(err.Error(), "was changed") {
			t.Errorf("tampered merge: %v", err)
		}
	}
	// Two different results for one case are a conflict.
	other := fakeOptions(t, &fakeRunner{cost: 0.5})
	other.Shard = parts[0].Shard
	r2, err := Evaluate(context.Background(), other)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Cases) > 0 {
		if _, err := Merge([]*Result{parts[0], r2}); err == nil || !strings.Contains(err.Error(), "two different results") {
			t.Errorf("conflicting merge: %v", err)
		}
	}
	// Results of different suites do not merge.
	r3 := *parts[1]
	r3.Suite = "b3:other"
	if _, err := Merge([]*Result{parts[0], &r3}); err == nil {
		t.Error("different suites must not merge")
	}
}

// TestMergeAttackPartsInAnyOrder: whoever gathers the shards (a CI job that
// lists its downloads in whatever order) must not change the merged result:
// every order of the same parts gives the same bytes.
func TestMergeAttackPartsInAnyOrder(t *testing.T) {
	var parts []*Result
	for i := 1; i <= 2; i++ {
		o := fakeOptions(t, &fakeRunner{})
		o.Shard = &Shard{i, 2}
		o.DataDir = t.TempDir()
		r, err := Evaluate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Questions) == 0 {
			t.Fatalf("shard %d/2 has no question: the attack needs every part to hold one", i)
		}
		parts = append(parts, r)
	}
	orders := [][]int{{0, 1}, {1, 0}, {1, 0, 1}, {0, 1, 0}}
	var want []byte
	for _, ord := range orders {
		var given []*Result
		for _, i := range ord {
			given = append(given, parts[i])
		}
		m, err := Merge(given)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			continue
		}
		if string(got) != string(want) {
			t.Fatalf("parts merged in order %v differ from order %v:\n%s\n%s", ord, orders[0], got, want)
		}
	}
}
