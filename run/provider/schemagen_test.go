package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// loadSchemaCorpus reads every schema of testdata/schemas.
func loadSchemaCorpus(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, err := filepath.Glob("testdata/schemas/*.json")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = m
	}
	if len(out) < 25 {
		t.Fatalf("schema corpus has %d schemas, want at least 25", len(out))
	}
	return out
}

// independentValidator compiles s with a fresh compiler, formats asserted,
// so the test does not share the mock's cache.
func independentValidator(t *testing.T, s map[string]any) *jsonschema.Schema {
	t.Helper()
	b, _ := json.Marshal(s)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("test:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("test:///s.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	return sch
}

func TestMockOutputSchemaConformance(t *testing.T) {
	for name, schema := range loadSchemaCorpus(t) {
		t.Run(name, func(t *testing.T) {
			sch := independentValidator(t, schema)
			distinct := map[string]bool{}
			for seed := int64(0); seed < 40; seed++ {
				req := Request{Node: "extract", Kind: KindLLM, Seed: seed, OutputSchema: schema,
					Messages: []Message{{Role: RoleUser, Content: "Extract the invoice details for the north region"}}}
				resp, err := NewMock(Options{}).Complete(context.Background(), req, nil)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(resp.Text))
				if err != nil {
					t.Fatalf("seed %d: not JSON: %v\n%s", seed, err, resp.Text)
				}
				if err := sch.Validate(inst); err != nil {
					t.Fatalf("seed %d: invalid output %s\n%v", seed, resp.Text, err)
				}
				distinct[resp.Text] = true
			}
			// Schemas that allow more than a handful of values should vary by seed.
			fewValues := map[string]bool{"top_level_enum": true, "escaped_pointer": true}
			if !fewValues[name] && len(distinct) < 3 {
				t.Errorf("only %d distinct outputs over 40 seeds", len(distinct))
			}
		})
	}
}

// TestSchemaGenFirstAttempt checks that the generator itself, before the
// validate-and-retry loop, gets most corpus schemas right; the retry loop
// is a safety net, not the mechanism.
func TestSchemaGenFirstAttempt(t *testing.T) {
	corpus := loadSchemaCorpus(t)
	bad := 0
	for name, schema := range corpus {
		doc, _, err := normalizeSchema(schema)
		if err != nil {
			t.Fatal(err)
		}
		sch := independentValidator(t, schema)
		g := &schemaGen{r: newRNG(7, []byte(name)), root: doc}
		b, _ := json.Marshal(g.gen(doc, "", 0))
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if sch.Validate(inst) != nil {
			bad++
			t.Logf("%s: first attempt invalid: %s", name, b)
		}
	}
	if bad > len(corpus)/10 {
		t.Errorf("%d of %d schemas need a retry", bad, len(corpus))
	}
}

func TestMockUnsatisfiableSchema(t *testing.T) {
	req := Request{Node: "n", Kind: KindLLM, OutputSchema: map[string]any{"type": "string", "minLength": 5, "maxLength": 2}}
	resp, err := NewMock(Options{}).Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(resp.Text)) {
		t.Errorf("want JSON even when the schema cannot be met, got %q", resp.Text)
	}
}

func TestMockSchemaFromYAMLTypes(t *testing.T) {
	// Schemas decoded from YAML carry int and uint64 values.
	schema := map[string]any{"type": "object", "required": []any{"n"}, "properties": map[string]any{
		"n": map[string]any{"type": "integer", "minimum": 3, "maximum": uint64(4)}}}
	resp, err := NewMock(Options{}).Complete(context.Background(), Request{Node: "n", OutputSchema: schema}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"n":3}` && resp.Text != `{"n":4}` {
		t.Errorf("got %s", resp.Text)
	}
}

func TestMockSchemaNotJSON(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[any]any{1: "x"}}
	_, err := NewMock(Options{}).Complete(context.Background(), Request{Node: "n", OutputSchema: map[string]any{"bad": schema}}, nil)
	if err == nil {
		t.Fatal("want an error for a schema that is not JSON")
	}
}
