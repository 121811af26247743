package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/internal/evfixture"
	"github.com/agentlab/agentlab/run/runlog"
)

// TestResumeOfADamagedRecord plays someone who edits a finished
// evaluation's record and then asks --resume for it: a record that does
// not verify as it stands is refused, never printed as sealed, and a sealed
// log cut short is not resumed and sealed again; a record killed between
// its run.finished and its seal is sealed then, to the seal it would have
// had.
func TestResumeOfADamagedRecord(t *testing.T) {
	epoch := time.Unix(1700000000, 0).UTC()
	base := t.TempDir()
	o := fakeOptions(t, &fakeRunner{})
	o.DataDir, o.Epoch = base, &epoch
	first, err := Evaluate(context.Background(), o)
	if err != nil || first.Seal == "" {
		t.Fatalf("first evaluation: %v %q", err, first.Seal)
	}
	runDir := filepath.Join(runlog.RunsDir(base), first.Eval)
	editRecord := func(t *testing.T, dir string, f func(map[string]any)) {
		if err := evfixture.EditRecord(dir, f); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dataDir, dir string)
		ok     bool
	}{
		{"untouched", func(*testing.T, string, string) {}, true},
		{"killed before its seal", func(t *testing.T, _, dir string) {
			editRecord(t, dir, func(m map[string]any) { delete(m, "seal"); delete(m, "seal_data"); m["status"] = "running" })
		}, true},
		{"run.json names another seal", func(t *testing.T, _, dir string) {
			editRecord(t, dir, func(m map[string]any) {
				m["seal"] = "b3:0000000000000000000000000000000000000000000000000000000000000000"
			})
		}, false},
		{"an artifact gone", func(t *testing.T, dataDir, _ string) {
			var gone string
			filepath.WalkDir(filepath.Join(dataDir, "artifacts"), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && gone == "" {
					gone = p
				}
				return nil
			})
			os.Chmod(gone, 0o644)
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"the log's last newline cut", func(t *testing.T, _, dir string) {
			p := filepath.Join(dir, runlog.EventsFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-1], 0o644)
		}, false},
		{"a blank line in the log", func(t *testing.T, _, dir string) {
			p := filepath.Join(dir, runlog.EventsFile)
			b, _ := os.ReadFile(p)
			i := 0
			for n := 0; n < 3; i++ {
				if b[i] == '\n' {
					n++
				}
			}
			os.WriteFile(p, append(append(b[:i:i], '\n'), b[i:]...), 0o644)
		}, false},
		{"the log's last line gone", func(t *testing.T, _, dir string) {
			p := filepath.Join(dir, runlog.EventsFile)
			b, _ := os.ReadFile(p)
			i := len(b) - 2
			for i > 0 && b[i] != '\n' {
				i--
			}
			os.WriteFile(p, b[:i+1], 0o644)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dataDir := t.TempDir()
			if err := os.CopyFS(dataDir, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(dataDir, "runs", filepath.Base(runDir))
			tc.damage(t, dataDir, dir)
			r := fakeOptions(t, &fakeRunner{})
			r.DataDir, r.Epoch, r.Resume = dataDir, &epoch, true
			res, err := Evaluate(context.Background(), r)
			if !tc.ok {
				if !errors.Is(err, ErrRecordDamaged) {
					t.Fatalf("resumed a damaged record: %v (seal %v)", err, res)
				}
				return
			}
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if res.Seal != first.Seal || len(res.Cases) != len(first.Cases) {
				t.Fatalf("resume: %v, seal %q (want %q)", err, res.Seal, first.Seal)
			}
		})
	}
}

// TestResumeRefusesChangedData: an evaluation stopped halfway (by its cost
// cap) and resumed after its data changed would score its cases on two
// versions of the data; --resume refuses it, naming the source, and
// resumes it once the data is back as it was.
func TestResumeRefusesChangedData(t *testing.T) {
	epoch := time.Unix(1700000000, 0).UTC()
	dataDir := t.TempDir()
	run := func(resume bool, hash string) (*Result, error) {
		o := fakeOptions(t, &fakeRunner{cost: 1})
		o.DataDir, o.Epoch, o.Resume, o.Parallel = dataDir, &epoch, resume, 1
		o.Sources = map[string]string{"sales": hash}
		if !resume {
			o.MaxCostUSD = 3
		}
		return Evaluate(context.Background(), o)
	}
	first, err := run(false, "b3:one")
	if err != nil || first.Status != "incomplete" {
		t.Fatalf("first attempt: %v, status %v", err, first)
	}
	if _, err := run(true, "b3:two"); err == nil || !strings.Contains(err.Error(), "the data changed since it started (sales)") {
		t.Fatalf("resumed on other data: %v", err)
	}
	res, err := run(true, "b3:one")
	if err != nil || res.Status != "complete" {
		t.Fatalf("resumed on the same data: %v, %v", err, res)
	}
}
