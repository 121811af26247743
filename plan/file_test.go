package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func samplePlan() *Plan {
	return &Plan{Format: FormatVersion, Agentlab: 1, Name: "weekly", Tier: TierGoverned,
		Sources: map[string]Source{"sales": {Kind: "csv", Path: "data/sales.csv"}}}
}

// TestPlanFileRunsWhereWritten: a plan written away from its flow records
// the flow's directory, relative to the plan, outside the hash; written
// beside the flow it is exactly the canonical plan.
func TestPlanFileRunsWhereWritten(t *testing.T) {
	p := samplePlan()
	want, _ := p.Hash()
	canonical, _ := p.Canonical()
	cases := []struct {
		name, plan, flow, key, dir string
	}{
		{"beside the flow", "flows/weekly.plan.json", "flows/weekly.yml", "", "flows"},
		{"working directory", "weekly.plan.json", "flows/weekly.yml", "flows", "flows"},
		{"sibling directory", "build/weekly.plan.json", "flows/weekly.yml", "../flows", "flows"},
		{"deeper", "out/plans/x.json", "examples/traceable-weekly/flow.yml", "../../examples/traceable-weekly", "examples/traceable-weekly"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := FlowDirFor(c.plan, c.flow)
			if key != c.key {
				t.Fatalf("FlowDirFor = %q, want %q", key, c.key)
			}
			b, err := MarshalFile(p, key)
			if err != nil {
				t.Fatal(err)
			}
			if key == "" && !bytes.Equal(b, append(canonical, '\n')) {
				t.Errorf("a plan beside its flow is the canonical plan: %s", b)
			}
			if key != "" && !strings.Contains(string(b), `"flow_dir":"`+c.key+`"`) {
				t.Errorf("no flow_dir in %s", b)
			}
			path := filepath.Join(t.TempDir(), filepath.FromSlash(c.plan))
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			got, h, dir, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if h != want || got.Name != "weekly" {
				t.Errorf("hash %s, want %s: the flow's location must not change the plan hash", h, want)
			}
			// The plan's directory is where the flow's is relative to.
			root := strings.TrimSuffix(path, filepath.FromSlash(c.plan))
			if wantDir := filepath.Join(root, filepath.FromSlash(c.dir)); dir != wantDir {
				t.Errorf("flow dir %s, want %s", dir, wantDir)
			}
		})
	}
}

// TestPlanFileEditedFlowDir plays a person editing the plan file as text:
// a changed flow_dir moves where the run looks for data (the run records
// what it read by content) but never the plan hash; a flow_dir that is no
// path is refused.
func TestPlanFileEditedFlowDir(t *testing.T) {
	p := samplePlan()
	want, _ := p.Hash()
	dir := t.TempDir()
	b, _ := MarshalFile(p, "flows")
	cases := []struct {
		name, from, to, wantErr string
	}{
		{"other dir", `"flow_dir":"flows"`, `"flow_dir":"elsewhere"`, ""},
		{"absolute", `"flow_dir":"flows"`, `"flow_dir":"/srv/flows"`, ""},
		{"empty", `"flow_dir":"flows"`, `"flow_dir":""`, "must be a directory path"},
		{"number", `"flow_dir":"flows"`, `"flow_dir":7`, "must be a directory path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".plan.json")
			os.WriteFile(path, bytes.Replace(b, []byte(c.from), []byte(c.to), 1), 0o644)
			_, h, _, err := ReadFile(path)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || h != want {
				t.Errorf("err %v, hash %s want %s", err, h, want)
			}
		})
	}
}
