package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestRunDirTamperingIsNamed: an editor who changes what a run directory
// holds besides its sealed events — a byte of the stored inputs, a line
// appended after the seal, the directory's name, the plan in run.json —
// fails verify, with the check and the sentence that say what changed.
func TestRunDirTamperingIsNamed(t *testing.T) {
	for _, tt := range []struct {
		name   string
		damage func(t *testing.T, r *evfixture.Run) string // returns the path to verify
		check  string
		want   string
	}{
		{"flipped-byte-in-stored-inputs", func(t *testing.T, r *evfixture.Run) string {
			id := storedInputsID(t, r)
			p := artifactPath(filepath.Join(r.DataDir, "artifacts"), id)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1
			os.Chmod(p, 0o644)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return r.Dir
		}, CheckArtifacts, "the stored inputs: artifact"},
		{"garbage-line-after-the-seal", func(t *testing.T, r *evfixture.Run) string {
			f, err := os.OpenFile(filepath.Join(r.Dir, "events.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"garbage": tru`)
			f.Close()
			return r.Dir
		}, CheckBundle, "not an event, after the sealed events"},
		{"renamed-run-directory", func(t *testing.T, r *evfixture.Run) string {
			to := filepath.Join(filepath.Dir(r.Dir), "someone-else")
			if err := os.Rename(r.Dir, to); err != nil {
				t.Fatal(err)
			}
			return to
		}, CheckBundle, "the run directory is named someone-else, but run.json and the events are for run " + "RUN"},
		{"plan-changed-in-run-json", func(t *testing.T, r *evfixture.Run) string {
			if err := evfixture.EditRecord(r.Dir, func(rec map[string]any) { rec["plan"] = "b3:" + strings.Repeat("1", 64) }); err != nil {
				t.Fatal(err)
			}
			return r.Dir
		}, CheckPlan, "run.json names plan 111111111111, but the seal is over plan"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := fixtureRun(t, evfixture.Options{})
			if res, err := Verify(r.Dir, Options{}); err != nil || !res.OK {
				t.Fatalf("the undamaged run does not verify: %v %+v", err, res)
			}
			path := tt.damage(t, r)
			res, err := Verify(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(tt.want, "RUN", r.ID)
			for _, c := range res.Checks {
				if c.Name == tt.check && !c.OK && strings.Contains(c.Detail, want) {
					return
				}
			}
			t.Errorf("want check %s to fail with %q; got %+v", tt.check, want, res.Checks)
		})
	}
}

func storedInputsID(t *testing.T, r *evfixture.Run) hashid.ID {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Data struct {
			InputsHash string `json:"inputs_hash"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &e); err != nil {
		t.Fatal(err)
	}
	id, err := hashid.Parse(e.Data.InputsHash)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
