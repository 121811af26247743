package diag

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sample is a fixed list used by every format's golden test.
func sample() List {
	var l List
	l.Errorf("flows/a.flow.yml", Pos{Line: 3, Col: 7}, "E-SCHEMA-UNKNOWN-KEY", "did you mean \"prompt\"?", "unknown key %q in node %q", "promt", "brief")
	l.Warnf("flows/a.flow.yml", Pos{Line: 1, Col: 1}, "W-GRAPH-NO-OUTPUT", "add an output node", "flow has no output node")
	l.Hintf("flows/b,c.flow.yml", Pos{Line: 2, Col: 9}, "H-EXPR-WRAPPED", "", "expression is wrapped in {{ }}: 100%% read as the inner expression\nsecond line")
	// A duplicate that Sorted must drop.
	l.Warnf("flows/a.flow.yml", Pos{Line: 1, Col: 1}, "W-GRAPH-NO-OUTPUT", "add an output node", "flow has no output node")
	return l
}

var sources = map[string]string{
	"flows/a.flow.yml": "agentlab: 1\nnodes:\n  - promt: hi\n",
}

func readSample(name string) ([]byte, error) {
	if s, ok := sources[name]; ok {
		return []byte(s), nil
	}
	return nil, os.ErrNotExist
}

func TestFormatsGolden(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, format, sample(), TextOptions{ReadFile: readSample, ToolVersion: "test"}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "sample."+format+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s output differs from %s:\n%s", format, golden, buf.String())
			}
		})
	}
}

func TestJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, nil); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if d, ok := got["diagnostics"].([]any); !ok || len(d) != 0 {
		t.Errorf("empty list must encode as [], got %v", got["diagnostics"])
	}
	if got["errors"] != float64(0) || got["warnings"] != float64(0) {
		t.Errorf("counts: %v", got)
	}
}

func TestSARIFValidatesAgainstSchema(t *testing.T) {
	schemaFile, err := filepath.Abs(filepath.Join("..", "testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]List{"sample": sample(), "empty": nil, "checked": sample()} {
		var c *Checked
		if name == "checked" {
			c = sampleChecked()
		}
		var buf bytes.Buffer
		if err := writeSARIF(&buf, l.Sorted(), "test", c); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: SARIF output does not validate: %v", name, err)
		}
	}
	// The schema check itself must be able to fail.
	bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"level":"fatal","message":{"text":"m"}}]}]}`)))
	if err := sch.Validate(bad); err == nil {
		t.Error("a result with level \"fatal\" must not validate")
	}
}

func TestGitHubEscaping(t *testing.T) {
	var l List
	l.Errorf("a,b:c.yml", Pos{Line: 0, Col: 0}, "E-X", "", "50%% done\nnext")
	var buf bytes.Buffer
	if err := WriteGitHub(&buf, l); err != nil {
		t.Fatal(err)
	}
	want := "::error file=a%2Cb%3Ac.yml,line=1,col=1,title=E-X::50%25 done%0Anext\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestSortedDedups(t *testing.T) {
	got := sample().Sorted()
	if len(got) != 3 {
		t.Fatalf("want 3 after de-duplication, got %d", len(got))
	}
	if got[0].Line != 1 || got[1].Line != 3 {
		t.Errorf("not sorted by position: %v", got)
	}
}
