package runlog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
)

// TestMemoryRunSealsLikeADiskRun: the same events appended to a memory run
// and to a run on disk give the same log bytes and the same seal, and the
// memory run writes nothing under the data dir.
func TestMemoryRunSealsLikeADiskRun(t *testing.T) {
	epoch := time.Unix(1700000000, 0).UTC()
	plan := hashid.Sum([]byte("plan")).String()
	art := hashid.Sum([]byte("blob")).String()
	appendAll := func(r *Run) {
		t.Helper()
		r.PinClock(&epoch)
		for _, p := range []Pending{
			{Type: chain.TypeRunStarted, Data: map[string]any{"plan": plan}},
			{Type: chain.TypeNodeStarted, Node: "a"},
			{Type: chain.TypeNodeFinished, Node: "a", Data: map[string]any{"output": map[string]any{"n": 1}, "snapshot_artifact": art}},
			{Type: chain.TypeRunFinished, Data: map[string]any{"status": "succeeded"}},
			{Type: "run.note", Data: map[string]any{"after": "the seal", "x_artifact": hashid.Sum([]byte("late")).String()}},
		} {
			if _, err := r.Append(p.Type, p.Node, p.Data); err != nil {
				t.Fatal(err)
			}
		}
	}
	disk := createRun(t, t.TempDir(), "r1")
	appendAll(disk)
	wantSeal, wantHash, err := disk.Seal(plan)
	if err != nil {
		t.Fatal(err)
	}
	diskLog, err := os.ReadFile(disk.dir + "/" + EventsFile)
	if err != nil {
		t.Fatal(err)
	}
	disk.Close()

	data := t.TempDir()
	mem, err := NewMemory(data, filepath.Join(data, "tmp"), "r1", Record{Plan: plan, Status: StatusRunning})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(mem)
	gotSeal, gotHash, err := mem.Seal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := chain.ComputeSeal("r1", plan, mem.Events())
	if err != nil {
		t.Fatal(err)
	}
	if refHash, _ := ref.Hash(); refHash != wantHash {
		t.Errorf("runlog seals to %s, chain.ComputeSeal to %s", wantHash, refHash)
	}
	if gotHash != wantHash || len(gotSeal.Artifacts) != 1 || gotSeal.Artifacts[0] != art {
		t.Errorf("memory seal %s %v, disk seal %s %v", gotHash, gotSeal.Artifacts, wantHash, wantSeal.Artifacts)
	}
	if !bytes.Equal(mem.Log(), diskLog) {
		t.Errorf("memory log differs from events.jsonl:\n%s\n%s", mem.Log(), diskLog)
	}
	if rec := mem.Record(); rec.Seal != wantHash.String() {
		t.Errorf("record seal %q", rec.Seal)
	}
	if ents, _ := os.ReadDir(data); len(ents) != 0 {
		t.Errorf("a memory run wrote %d entries into the data dir", len(ents))
	}
	mem.Close()
	if _, err := mem.Append("x", "", nil); err == nil {
		t.Error("append after Close must fail")
	}
	if err := mem.WriteRecord(Record{}); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteRecord after Close: %v", err)
	}
	if disk.Log() != nil {
		t.Error("a run on disk has no memory log")
	}
}

// TestMemoryRunUnfinishedHasNoSeal: sealing a memory run that did not
// finish fails as it does on disk.
func TestMemoryRunUnfinishedHasNoSeal(t *testing.T) {
	mem, err := NewMemory(t.TempDir(), t.TempDir(), "r2", Record{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Append(chain.TypeRunStarted, "", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mem.Seal(hashid.Sum(nil).String()); !errors.Is(err, chain.ErrNotFinished) {
		t.Errorf("seal of an unfinished run: %v", err)
	}
	if _, _, err := mem.Seal("not a hash"); err == nil {
		t.Error("a bad plan hash must be refused")
	}
	if _, err := NewMemory(t.TempDir(), t.TempDir(), "../x", Record{}); err == nil {
		t.Error("a bad run id must be refused")
	}
}

// TestMemoryLogTruncate: cutting a memory log back keeps whole chunks
// before the cut and the head of the chunk it falls in.
func TestMemoryLogTruncate(t *testing.T) {
	f := &memFile{}
	for _, s := range []string{"abc", "de", "fghi"} {
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		size int64
		want string
	}{{9, "abcdefghi"}, {7, "abcdefg"}, {5, "abcde"}, {4, "abcd"}, {0, ""}} {
		f.Truncate(tt.size)
		if got := string(f.bytes()); got != tt.want {
			t.Errorf("Truncate(%d) = %q, want %q", tt.size, got, tt.want)
		}
		if fi, _ := f.Stat(); fi.Size() != int64(len(tt.want)) {
			t.Errorf("Truncate(%d): size %d", tt.size, fi.Size())
		}
	}
	f.Close()
	if _, err := f.Write([]byte("x")); err == nil {
		t.Error("a closed log must refuse writes")
	}
}

// TestLeanRunSealsFromDisk: a run that does not keep its events' data in
// memory seals exactly as one that does, from the log read back, and
// refuses to seal a log changed on disk meanwhile.
func TestLeanRunSealsFromDisk(t *testing.T) {
	plan := hashid.Sum([]byte("plan")).String()
	art := hashid.Sum([]byte("blob")).String()
	build := func(lean bool) *Run {
		r := createRun(t, t.TempDir(), "r1")
		epoch := time.Unix(1700000000, 0).UTC()
		r.PinClock(&epoch)
		r.KeepData(!lean)
		for _, p := range []Pending{
			{Type: chain.TypeRunStarted, Data: map[string]any{"plan": plan}},
			{Type: "eval.case", Node: "q1", Data: map[string]any{"case": map[string]any{"n": 1}, "x_artifact": art}},
			{Type: chain.TypeRunFinished, Data: map[string]any{"status": "succeeded"}},
		} {
			if _, err := r.Append(p.Type, p.Node, p.Data); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	full, lean := build(false), build(true)
	defer full.Close()
	defer lean.Close()
	if evs := lean.Events(); len(evs) != 3 || evs[1].Data != nil {
		t.Fatalf("a lean run keeps its events without data: %+v", evs)
	}
	_, want, err := full.Seal(plan)
	if err != nil {
		t.Fatal(err)
	}
	s, got, err := lean.Seal(plan)
	if err != nil || got != want || len(s.Artifacts) != 1 {
		t.Fatalf("lean seal %s %v (%v), full seal %s", got, s.Artifacts, err, want)
	}
	// Someone rewrites the log while the run is open.
	path := lean.dir + "/" + EventsFile
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"n":1`), []byte(`"n":2`), 1), 0o644)
	if _, _, err := lean.Seal(plan); err == nil {
		t.Error("a log changed on disk must not be sealed")
	}
}

// TestLeanSealReadsLineByLine attacks the read-back of a lean run's log
// for its seal: the log is edited, cut, reordered or padded on disk
// before the seal; each must fail, except what lies after the events the
// run wrote (a torn tail of a later write) and lines longer than the
// reader's buffer, which must seal as the run that kept its data does.
func TestLeanSealReadsLineByLine(t *testing.T) {
	plan := hashid.Sum([]byte("plan")).String()
	art := hashid.Sum([]byte("blob")).String()
	big := strings.Repeat("x", 200<<10) // longer than the 64 KiB read buffer
	build := func(lean bool) *Run {
		r := createRun(t, t.TempDir(), "r1")
		epoch := time.Unix(1700000000, 0).UTC()
		r.PinClock(&epoch)
		r.KeepData(!lean)
		for _, p := range []Pending{
			{Type: chain.TypeRunStarted, Data: map[string]any{"plan": plan}},
			{Type: "eval.case", Node: "q1", Data: map[string]any{"text": big, "x_artifact": art}},
			{Type: "eval.case", Node: "q2", Data: map[string]any{"n": 2}},
			{Type: chain.TypeRunFinished, Data: map[string]any{"status": "succeeded"}},
		} {
			if _, err := r.Append(p.Type, p.Node, p.Data); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	full := build(false)
	defer full.Close()
	_, want, err := full.Seal(plan)
	if err != nil {
		t.Fatal(err)
	}
	lines := func(b []byte) [][]byte { return bytes.SplitAfter(b, []byte("\n")) }
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		ok   bool
	}{
		{"untouched", func(b []byte) []byte { return b }, true},
		{"a torn tail after the events", func(b []byte) []byte { return append(b, `{"seq":5,"ty`...) }, true},
		{"last line cut", func(b []byte) []byte { return b[:len(b)-10] }, false},
		{"last line gone", func(b []byte) []byte { l := lines(b); return bytes.Join(l[:3], nil) }, false},
		{"two lines swapped", func(b []byte) []byte { l := lines(b); l[1], l[2] = l[2], l[1]; return bytes.Join(l, nil) }, false},
		{"a space in a line", func(b []byte) []byte { return bytes.Replace(b, []byte(`{"n":2}`), []byte(`{"n": 2}`), 1) }, false},
		{"data edited", func(b []byte) []byte { return bytes.Replace(b, []byte(`{"n":2}`), []byte(`{"n":3}`), 1) }, false},
		{"the artifact renamed", func(b []byte) []byte { return bytes.Replace(b, []byte(art), []byte(hashid.Sum(nil).String()), 1) }, false},
		{"a line added before", func(b []byte) []byte { l := lines(b); return bytes.Join(append([][]byte{l[0]}, l...), nil) }, false},
		{"empty", func([]byte) []byte { return nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lean := build(true)
			defer lean.Close()
			path := filepath.Join(lean.dir, EventsFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.edit(b), 0o644); err != nil {
				t.Fatal(err)
			}
			s, got, err := lean.Seal(plan)
			switch {
			case tc.ok && (err != nil || got != want || len(s.Artifacts) != 1):
				t.Fatalf("seal %s %v (%v), want %s", got, s.Artifacts, err, want)
			case !tc.ok && err == nil:
				t.Fatalf("sealed a log edited on disk: %s", got)
			}
		})
	}
}
