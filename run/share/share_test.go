package share

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/s3fake"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store/bucket"
	"github.com/agentlab/agentlab/verify"
)

var epoch = time.Unix(1700000000, 0).UTC()

// machine is one data dir that ran testdata/flow.yml under a fixed clock,
// optionally over other data (which changes the seal, not the run id).
func machine(t *testing.T, data string) (dataDir, runID, seal string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"flow.yml", "data/sales.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "data/sales.csv" && data != "" {
			b = []byte(data)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	flow := filepath.Join(dir, "flow.yml")
	p, ds := compile.CompileFile(flow, compile.Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	h, err := p.Hash()
	if err != nil {
		t.Fatal(err)
	}
	dataDir = filepath.Join(dir, ".agentlab")
	out, err := run.Start(context.Background(), run.Options{DataDir: dataDir, Plan: p, PlanHash: h, Source: flow, Epoch: &epoch})
	if err != nil {
		t.Fatal(err)
	}
	if out.Seal == "" {
		t.Fatalf("run not sealed: %s %s", out.Status, out.Error)
	}
	return dataDir, out.RunID, out.Seal
}

func open(t *testing.T, srv *s3fake.Server, query string) *bucket.Bucket {
	t.Helper()
	l, err := bucket.ParseLocation("s3://team/agentlab?path_style=true&endpoint=" + srv.URL + query)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bucket.Open(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTwoMachinesPublishTheSameRun: two data dirs run the same plan over
// the same data; the first publish writes, the second finds the same SEAL
// and writes nothing; a pull into a third data dir verifies offline,
// against the seal both machines computed.
func TestTwoMachinesPublishTheSameRun(t *testing.T) {
	srv := s3fake.Start(t, "team")
	b := open(t, srv, "")
	ctx := context.Background()
	a, id, seal := machine(t, "")
	c, id2, seal2 := machine(t, "")
	if id != id2 || seal != seal2 {
		t.Fatalf("the two machines differ: %s %s / %s %s", id, seal, id2, seal2)
	}
	first, err := Publish(ctx, b, a, id)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || first.Uploaded == 0 || first.Uploaded != first.Artifacts {
		t.Errorf("first publish %+v", first)
	}
	puts := srv.Puts()
	second, err := Publish(ctx, b, c, id)
	if err != nil {
		t.Fatal(err)
	}
	if second.Created || second.Seal != seal {
		t.Errorf("second publish %+v", second)
	}
	if srv.Puts() != puts {
		t.Errorf("the second publish wrote %d objects; the bucket had the run already", srv.Puts()-puts)
	}
	list, err := List(ctx, b)
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].Seal != seal || list[0].Problem != "" {
		t.Fatalf("list %+v %v", list, err)
	}

	fresh := filepath.Join(t.TempDir(), "auditor")
	got, err := Pull(ctx, b, fresh, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Fetched != got.Artifacts || got.Present {
		t.Errorf("pull %+v", got)
	}
	res, err := verify.Verify(got.Dir, verify.Options{Expect: seal})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("verify of the pulled run: %+v", res.Checks)
	}
	// Pulling again fetches nothing.
	again, err := Pull(ctx, b, fresh, id)
	if err != nil || !again.Present || again.Fetched != 0 {
		t.Errorf("second pull %+v %v", again, err)
	}
}

// TestDifferentSealIsNotReproducible: a second machine ran the same plan
// with the same inputs over other data: same run id, another seal. Its
// publish is refused naming both seals, and the bucket keeps the first.
func TestDifferentSealIsNotReproducible(t *testing.T) {
	srv := s3fake.Start(t, "team")
	b := open(t, srv, "")
	ctx := context.Background()
	a, id, seal := machine(t, "")
	c, id2, seal2 := machine(t, "week,region,amount\n2026-W47,north,1501\n")
	if id != id2 || seal == seal2 {
		t.Fatalf("want one id, two seals: %s %s / %s %s", id, seal, id2, seal2)
	}
	if _, err := Publish(ctx, b, a, id); err != nil {
		t.Fatal(err)
	}
	_, err := Publish(ctx, b, c, id)
	if !errors.Is(err, ErrNotReproducible) || !strings.Contains(err.Error(), seal) || !strings.Contains(err.Error(), seal2) {
		t.Fatalf("err = %v, want not reproducible naming both seals", err)
	}
	// A pull into the second machine's data dir refuses too.
	if _, err := Pull(ctx, b, c, id); !errors.Is(err, ErrNotReproducible) {
		t.Errorf("pull over another seal: %v", err)
	}
	list, _ := List(ctx, b)
	if len(list) != 1 || list[0].Seal != seal {
		t.Errorf("the bucket must keep the first seal: %+v", list)
	}
}

// TestTwoWritersRaceWithDifferentSeals: both publish at once; exactly one
// commits, the other is told the run is not reproducible, and the
// committed run pulls and verifies.
func TestTwoWritersRaceWithDifferentSeals(t *testing.T) {
	srv := s3fake.Start(t, "team")
	ctx := context.Background()
	a, id, _ := machine(t, "")
	c, _, _ := machine(t, "week,region,amount\n2026-W47,north,7\n")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, dir := range []string{a, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Publish(ctx, open(t, srv, ""), dir, id)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrNotReproducible):
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d writers committed, want exactly 1: %v", ok, errs)
	}
	got, err := Pull(ctx, open(t, srv, ""), filepath.Join(t.TempDir(), "d"), id)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := verify.Verify(got.Dir, verify.Options{Expect: got.Seal}); err != nil || !res.OK {
		t.Fatalf("verify %+v %v", res, err)
	}
}

// TestCrashMidPublish: the server fails every write after the first few
// (a machine dying half-way). Nothing is committed, nothing is listed,
// and publishing again completes the run.
func TestCrashMidPublish(t *testing.T) {
	srv := s3fake.Start(t, "team")
	ctx := context.Background()
	a, id, seal := machine(t, "")
	srv.FailPutsAfter.Store(srv.Puts() + 4) // the probe takes two
	if _, err := Publish(ctx, open(t, srv, ""), a, id); err == nil {
		t.Fatal("publish through a failing server succeeded")
	}
	b := open(t, srv, "")
	if list, err := List(ctx, b); err != nil || len(list) != 0 {
		t.Fatalf("a half-published run is listed: %+v %v", list, err)
	}
	if _, err := Pull(ctx, b, t.TempDir(), id); !errors.Is(err, runlog.ErrNoRun) {
		t.Errorf("pull of a half-published run: %v", err)
	}
	srv.FailPutsAfter.Store(0)
	p, err := Publish(ctx, b, a, id)
	if err != nil || !p.Created || p.Seal != seal {
		t.Fatalf("publish after the crash: %+v %v", p, err)
	}
	if p.Uploaded == p.Artifacts {
		t.Errorf("the second attempt uploaded all %d artifacts again; those written before the crash are kept", p.Artifacts)
	}
}

// TestServerWithoutConditionalPut: a server that ignores If-None-Match is
// found out by the probe; publishing falls back to HEAD, PUT and read back
// and still refuses a different seal.
func TestServerWithoutConditionalPut(t *testing.T) {
	srv := s3fake.Start(t, "team")
	srv.NoConditional.Store(true)
	b := open(t, srv, "")
	ctx := context.Background()
	if cond, err := b.Conditional(ctx); err != nil || cond {
		t.Fatalf("probe: conditional=%v err=%v, want false", cond, err)
	}
	a, id, _ := machine(t, "")
	c, _, _ := machine(t, "week,region,amount\n2026-W47,north,3\n")
	if p, err := Publish(ctx, b, a, id); err != nil || !p.Created {
		t.Fatalf("publish %+v %v", p, err)
	}
	if _, err := Publish(ctx, b, c, id); !errors.Is(err, ErrNotReproducible) {
		t.Errorf("another seal without conditional PUT: %v", err)
	}
	// With conditional PUT honoured, the probe says so.
	srv.NoConditional.Store(false)
	if cond, err := open(t, srv, "").Conditional(ctx); err != nil || !cond {
		t.Errorf("probe on a conditional server: %v %v", cond, err)
	}
}

// TestPullRefusesEditedArtifact: someone with write access to the bucket
// edits a blob; the pull re-hashes it and refuses, keeping nothing.
func TestPullRefusesEditedArtifact(t *testing.T) {
	srv := s3fake.Start(t, "team")
	b := open(t, srv, "")
	ctx := context.Background()
	a, id, _ := machine(t, "")
	p, err := Publish(ctx, b, a, id)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Get(ctx, b.Loc.Key("runs", id, strings.TrimPrefix(p.Seal, "b3:"), ManifestFile), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var man Manifest
	if err := json.Unmarshal(m, &man); err != nil || len(man.Artifacts) == 0 {
		t.Fatalf("manifest %s: %v", m, err)
	}
	first := strings.TrimPrefix(man.Artifacts[0], "b3:")
	if err := b.Put(ctx, b.Loc.Key("artifacts", first), []byte("forged")); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	_, err = Pull(ctx, b, fresh, id)
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("pull of an edited blob: %v", err)
	}
	if _, err := os.Stat(filepath.Join(runlog.RunsDir(fresh), id)); err == nil {
		t.Error("a refused pull left a run directory")
	}
}

// TestServerLyingAboutPreconditions: a server (or proxy) that answers 412
// "already there" to every conditional PUT of a blob without having it
// must not get a SEAL committed over missing blobs.
func TestServerLyingAboutPreconditions(t *testing.T) {
	srv := s3fake.Start(t, "team")
	b := open(t, srv, "")
	ctx := context.Background()
	if _, err := b.Conditional(ctx); err != nil {
		t.Fatal(err)
	}
	srv.LyingPreconditions.Store(true)
	a, id, _ := machine(t, "")
	if _, err := Publish(ctx, b, a, id); err == nil || !strings.Contains(err.Error(), "412") {
		t.Fatalf("publish through a lying server: %v", err)
	}
	if list, _ := List(ctx, b); len(list) != 0 {
		t.Errorf("a run over missing blobs was committed: %+v", list)
	}
}

// TestConcurrentPullsOfOneRun: three pulls of the same run into one data
// dir at once all succeed; the run is there once and verifies.
func TestConcurrentPullsOfOneRun(t *testing.T) {
	srv := s3fake.Start(t, "team")
	ctx := context.Background()
	a, id, seal := machine(t, "")
	if _, err := Publish(ctx, open(t, srv, ""), a, id); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "d")
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Pull(ctx, open(t, srv, ""), dir, id)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("pull %d: %v", i, err)
		}
	}
	if res, err := verify.Verify(filepath.Join(runlog.RunsDir(dir), id), verify.Options{Expect: seal}); err != nil || !res.OK {
		t.Errorf("verify after concurrent pulls: %+v %v", res, err)
	}
}

// TestOversizedBlobRefusedByManifestSize: a blob replaced in the bucket by
// a far larger object is refused by the size the manifest recorded, before
// it fills the puller's disk.
func TestOversizedBlobRefusedByManifestSize(t *testing.T) {
	srv := s3fake.Start(t, "team")
	b := open(t, srv, "")
	ctx := context.Background()
	a, id, seal := machine(t, "")
	if _, err := Publish(ctx, b, a, id); err != nil {
		t.Fatal(err)
	}
	sh, _ := hashid.Parse(seal)
	m, err := readManifest(ctx, b, id, sh)
	if err != nil {
		t.Fatal(err)
	}
	victim := m.Artifacts[0]
	big := bytes.Repeat([]byte("x"), int(m.Sizes[victim])+1<<20)
	if err := b.Put(ctx, b.Loc.Key("artifacts", strings.TrimPrefix(victim, "b3:")), big); err != nil {
		t.Fatal(err)
	}
	_, err = Pull(ctx, b, t.TempDir(), id)
	if err == nil || !strings.Contains(err.Error(), "over the size limit") {
		t.Fatalf("pull of an oversized blob: %v", err)
	}
}

// TestListShowsJunkSealAsProblem: one oversized SEAL under runs/ is a
// problem row, not a failure of the whole listing.
func TestListShowsJunkSealAsProblem(t *testing.T) {
	srv := s3fake.Start(t, "team")
	b := open(t, srv, "")
	ctx := context.Background()
	a, id, _ := machine(t, "")
	if _, err := Publish(ctx, b, a, id); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, b.Loc.Key("runs", "zzz", SealFile), bytes.Repeat([]byte{0}, 2000)); err != nil {
		t.Fatal(err)
	}
	list, err := List(ctx, b)
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	for _, r := range list {
		if r.ID == "zzz" && r.Problem == "" {
			t.Errorf("junk SEAL listed without a problem: %+v", r)
		}
	}
}
