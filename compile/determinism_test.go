package compile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// detBase is a flow written plainly; detSame are the same flow written
// differently (reformatted, reordered, commented, re-quoted, anchored,
// edges in another form or order, described); detDiff each change one
// behaviour.
const detBase = `agentlab: 1
name: det
inputs:
  q: {type: string, required: true}
nodes:
  - id: a
    type: llm
    prompt: "Answer {{ input.q }}"
    temperature: 0.5
  - id: r
    type: report
    prompt: "Report {{ nodes.a.text }}"
    claims: require_citation
  - id: code
    type: code
    file: job.py
  - id: o
    type: output
    contract: {report_from: r}
edges:
  - a -> r
  - r -> code
  - code -> o
`

var detSame = map[string]string{
	"reordered": `name: det
edges: [{from: code, to: o}, r -> code, a -> r]
agentlab: 1
nodes:
  - {type: llm, temperature: 0.50, id: a, prompt: 'Answer {{ input.q }}'}
  - {prompt: "Report {{ nodes.a.text }}", id: r, claims: "require_citation", type: report}
  - {file: job.py, id: code, type: code}
  - {contract: {report_from: r}, type: output, id: o}
inputs: {q: {required: true, type: string}}
`,
	"commented": "# a comment\n" + detBase + "# trailing comment\n",
	// descriptions and examples are documentation: an edit of one must not
	// break the pin of every flow that embeds this one
	"documented": strings.Replace(strings.Replace(detBase, "name: det\n", "name: det\ndescription: answers and reports\n", 1),
		"q: {type: string, required: true}", "q: {type: string, required: true, description: the question, example: 'why?'}", 1),
	"anchored-chain": `agentlab: 1
name: det
x-q: &q {type: string, required: true}
inputs: {q: *q}
nodes:
  - &llm {id: a, type: llm, prompt: "Answer {{ input.q }}", temperature: 5e-1}
  - id: r
    type: report
    prompt: >-
      Report {{ nodes.a.text }}
    claims: require_citation
    numbers: strict
  - {id: code, type: code, file: job.py, language: python}
  - id: o
    type: output
    contract:
      report_from: r
edges: ["a -> r -> code -> o"]
`,
}

var detDiff = map[string][2]string{
	"prompt":      {`"Answer {{ input.q }}"`, `"Answer {{ input.q }}!"`},
	"temperature": {"temperature: 0.5", "temperature: 0.6"},
	"edge":        {"  - code -> o\n", "  - r -> o\n  - code -> o\n"},
	"claims":      {"claims: require_citation", "claims: \"off\""},
	"required":    {"required: true", "required: false"},
	"retry":       {"    temperature: 0.5\n", "    temperature: 0.5\n    retry: {max: 1}\n"},
	"title":       {"name: det\n", "name: det\ntitle: Det\n"},
}

func detCompile(t *testing.T, dir, name, flow string) string {
	t.Helper()
	p := filepath.Join(dir, name+".flow.yml")
	if err := os.WriteFile(p, []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	pl, l := CompileFile(p, Options{})
	if pl == nil {
		t.Fatalf("%s does not compile:\n%s", name, dump(l))
	}
	h, err := pl.Hash()
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

func TestHashIgnoresFormatting(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "job.py"), []byte("print(1)\n"), 0o644)
	base := detCompile(t, dir, "base", detBase)
	if again := detCompile(t, dir, "again", detBase); again != base {
		t.Fatalf("same input, different hash: %s vs %s", base, again)
	}
	for name, src := range detSame {
		if h := detCompile(t, dir, name, src); h != base {
			t.Errorf("%s: hash %s, want %s", name, h, base)
		}
	}
	for name, d := range detDiff {
		changed := bytes.Replace([]byte(detBase), []byte(d[0]), []byte(d[1]), 1)
		if bytes.Equal(changed, []byte(detBase)) {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if h := detCompile(t, dir, "diff-"+name, string(changed)); h == base {
			t.Errorf("%s: a change of behaviour kept the hash %s", name, h)
		}
	}
	// The content of a code file is part of the plan.
	os.WriteFile(filepath.Join(dir, "job.py"), []byte("print(2)\n"), 0o644)
	if h := detCompile(t, dir, "base2", detBase); h == base {
		t.Errorf("changing the code file kept the hash")
	}
}

// TestPlanBytesStable compiles the same flow repeatedly: map iteration
// order must never leak into the plan bytes.
func TestPlanBytesStable(t *testing.T) {
	var first []byte
	for i := 0; i < 20; i++ {
		p, l := CompileFile("testdata/ok/all-types.flow.yml", Options{})
		if p == nil {
			t.Fatal(dump(l))
		}
		b, _ := p.Canonical()
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Fatal("plan bytes differ between two compiles of the same file")
		}
	}
}
