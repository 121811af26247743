package sources

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

// queryAll runs q on source s of db and returns its rows and the hashes.
func queryAll(t *testing.T, db *DB, s, q string) ([][]any, map[string]string) {
	t.Helper()
	snap, err := db.Query(context.Background(), s, q, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return snap.Rows, db.SourceHashes()
}

// TestCacheAnswersLikeAFreshLoad checks that databases loaded from a
// shared build answer, hash and refuse exactly as a build of their own.
func TestCacheAnswersLikeAFreshLoad(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "sales.csv"), []byte("region,amount,customer\nn,10,x\ns,32,y\n"), 0o644)
	srcs := map[string]plan.Source{"sales": {Kind: "csv", Path: "sales.csv", MaskColumns: []string{"customer"}}}
	cache := NewCache()
	defer cache.Close()
	fresh, err := Load(context.Background(), dir, srcs)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	for i := 0; i < 3; i++ {
		db, err := LoadCached(context.Background(), dir, srcs, cache)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"SELECT SUM(amount) FROM sales", "SELECT region, amount FROM sales ORDER BY region"} {
			gr, gh := queryAll(t, db, "sales", q)
			wr, wh := queryAll(t, fresh, "sales", q)
			if !reflect.DeepEqual(gr, wr) || !reflect.DeepEqual(gh, wh) {
				t.Errorf("%s: cached %v %v, fresh %v %v", q, gr, gh, wr, wh)
			}
		}
		// The mask is the same wall: the masked column never comes back.
		snap, err := db.Query(context.Background(), "sales", "SELECT customer FROM sales", nil, 0)
		if err == nil && len(snap.Masked) == 0 {
			t.Errorf("a masked column was read through a cached database: %+v", snap)
		}
		if !reflect.DeepEqual(db.Tools(), fresh.Tools()) {
			t.Errorf("tools differ: %+v vs %+v", db.Tools(), fresh.Tools())
		}
		db.Close()
	}
	if len(cache.built) != 1 {
		t.Errorf("%d builds for one source and one version of its file", len(cache.built))
	}
}

// TestCacheRebuildsAnEditedFile plays someone who edits the data file as
// text between two runs of one evaluation: the second run must query, and
// record the hash of, the new bytes, never the first build.
func TestCacheRebuildsAnEditedFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sales.csv")
	os.WriteFile(file, []byte("region,amount\nn,10\n"), 0o644)
	srcs := map[string]plan.Source{"sales": {Kind: "csv", Path: "sales.csv"}}
	cache := NewCache()
	defer cache.Close()
	first, err := LoadCached(context.Background(), dir, srcs, cache)
	if err != nil {
		t.Fatal(err)
	}
	r1, h1 := queryAll(t, first, "sales", "SELECT SUM(amount) FROM sales")
	first.Close()
	os.WriteFile(file, []byte("region,amount\nn,10\ns,5\n"), 0o644)
	second, err := LoadCached(context.Background(), dir, srcs, cache)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	r2, h2 := queryAll(t, second, "sales", "SELECT SUM(amount) FROM sales")
	if r1[0][0] != int64(10) || r2[0][0] != int64(15) {
		t.Errorf("sums %v then %v, want 10 then 15", r1, r2)
	}
	if h1["sales"] == h2["sales"] {
		t.Errorf("the edited file kept its hash %s", h1["sales"])
	}
	// A broken edit is refused as Load refuses it, not served from the cache.
	os.WriteFile(file, []byte("region,amount\nn,10\n3\n"), 0o644)
	if db, err := LoadCached(context.Background(), dir, srcs, cache); err == nil {
		db.Close()
		t.Fatal("a ragged CSV loaded from the cache")
	}
}

// TestCacheCloseRemovesItsBuilds checks that nothing is left in the
// temporary directory.
func TestCacheCloseRemovesItsBuilds(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte("x\n1\n"), 0o644)
	cache := NewCache()
	db, err := LoadCached(context.Background(), dir, map[string]plan.Source{"a": {Kind: "csv", Path: "a.csv"}}, cache)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	built := cache.dir
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(built); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Close: %v", built, err)
	}
}
