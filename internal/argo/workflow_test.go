package argo

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func opts() Options {
	return Options{Name: "Weekly Sales", Image: "ghcr.io/acme/flows:1.4", Store: "s3://team-runs/agentlab?region=eu-west-1",
		WorkingDir: "/work", Env: []EnvVar{{Name: "SOURCE_DATE_EPOCH", Value: "1700000000"}}, Extra: []string{"--provider", "mock"}}
}

// TestGolden pins the exported workflows byte for byte and checks each
// against the schema of the Argo fields agentlab writes.
func TestGolden(t *testing.T) {
	schema := compileSchema(t)
	eval, err := EvalShards("flows/weekly.eval.yml", 3, opts())
	if err != nil {
		t.Fatal(err)
	}
	batch, err := PlanBatch("weekly.plan.json", []string{`{"week":"2026-W47"}`, `{"week":"2026-W48"}`}, opts())
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*Workflow{"eval-shards.yaml": eval, "plan-batch.yaml": batch} {
		got, err := w.YAML()
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden file (go test ./internal/argo -update):\n%s", name, got)
		}
		var doc any
		if err := yaml.Unmarshal(got, &doc); err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(doc)
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s does not fit the Argo fields: %v", name, err)
		}
	}
}

// TestSchemaCatchesAnInventedField makes sure the schema check can fail.
func TestSchemaCatchesAnInventedField(t *testing.T) {
	schema := compileSchema(t)
	w, _ := EvalShards("s.eval.yml", 1, opts())
	y, _ := w.YAML()
	bad := strings.Replace(string(y), "entrypoint: eval", "entrypoint: eval\n  parallelismm: 3", 1)
	var doc any
	if err := yaml.Unmarshal([]byte(bad), &doc); err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(doc)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if schema.Validate(inst) == nil {
		t.Error("a misspelt spec field passed the schema")
	}
}

func TestRefusals(t *testing.T) {
	o := opts()
	o.Image = ""
	if _, err := EvalShards("s.eval.yml", 2, o); err == nil || !strings.Contains(err.Error(), "--image") {
		t.Errorf("no image: %v", err)
	}
	o = opts()
	o.Store = ""
	if _, err := PlanBatch("p.json", []string{"{}"}, o); err == nil || !strings.Contains(err.Error(), "--store") {
		t.Errorf("no store: %v", err)
	}
	if _, err := EvalShards("s.eval.yml", 0, opts()); err == nil {
		t.Error("zero shards accepted")
	}
	if _, err := PlanBatch("p.json", nil, opts()); err == nil {
		t.Error("an empty batch accepted")
	}
	// A workflow of a hundred million tasks would take the exporter's
	// memory and the cluster's with it.
	if _, err := EvalShards("s.eval.yml", MaxTasks+1, opts()); err == nil || !strings.Contains(err.Error(), "from 1 to") {
		t.Errorf("%d shards: %v", MaxTasks+1, err)
	}
	if _, err := PlanBatch("p.json", make([]string, MaxTasks+1), opts()); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%d input lines: %v", MaxTasks+1, err)
	}
	if got := resourceName("Weekly Sales (EU) ÄÖ"); got != "weekly-sales-eu" {
		t.Errorf("resourceName = %q", got)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	f, err := os.Open(filepath.Join("testdata", "workflow-subset.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("workflow.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("workflow.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
