package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// genFlow writes an n-node flow that looks like real ones: a chain with
// joins, a mix of transforms (expressions), llm nodes (templates) and tool
// nodes, every node reading the output of the node before it.
func genFlow(n int) []byte {
	var b strings.Builder
	b.WriteString("agentlab: 1\nname: big\ninputs:\n  q: {type: string, required: true}\nsources:\n  s: {kind: csv, path: s.csv}\nnodes:\n")
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("n%d", i)
		prev := fmt.Sprintf("n%d", i-1)
		switch {
		case i == 0:
			fmt.Fprintf(&b, "  - id: %s\n    type: input\n", id)
		case i == n-1:
			fmt.Fprintf(&b, "  - id: %s\n    type: output\n    fields: {last: \"{{ nodes.%s }}\"}\n", id, prev)
		case i%5 == 0:
			fmt.Fprintf(&b, "  - id: %s\n    type: llm\n    prompt: \"Step %d of {{ input.q }}: {{ nodes.%s }}\"\n    temperature: 0.1\n", id, i, prev)
		case i%7 == 0:
			fmt.Fprintf(&b, "  - id: %s\n    type: tool\n    tool: db_query__s\n    args: {sql: \"SELECT * FROM s LIMIT %d\"}\n", id, i)
		default:
			fmt.Fprintf(&b, "  - id: %s\n    type: transform\n    expr: \"len(string(nodes.%s)) + %d\"\n", id, prev, i)
		}
	}
	b.WriteString("edges:\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  - n%d -> n%d\n", i-1, i)
		if i%10 == 0 && i >= 3 {
			fmt.Fprintf(&b, "  - n%d -> n%d\n", i-3, i)
		}
	}
	return []byte(b.String())
}

func writeBig(b *testing.B, n int) string {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "s.csv"), []byte("a\n1\n"), 0o644)
	p := filepath.Join(dir, "big.flow.yml")
	if err := os.WriteFile(p, genFlow(n), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkYAMLParse10k is the floor: yaml.v3 parsing the same bytes
// into nodes, which any checker with positions has to do.
func BenchmarkYAMLParse10k(b *testing.B) {
	data := genFlow(10_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLintCompile10k lints and compiles a 10,000-node flow from its
// file to the normalised plan. Budget (docs/performance.md): ≤ 3× the floor.
func BenchmarkLintCompile10k(b *testing.B) { benchCompile(b, 10_000) }

// BenchmarkLintCompile100k shows that the work stays linear.
func BenchmarkLintCompile100k(b *testing.B) { benchCompile(b, 100_000) }

func benchCompile(b *testing.B, n int) {
	p := writeBig(b, n)
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		pl, l := CompileFile(p, Options{})
		if pl == nil {
			b.Fatalf("compile failed:\n%s", dump(l[:min(len(l), 10)]))
		}
	}
}

// BenchmarkLintCompileRatio10k measures the budget directly: every
// iteration parses the bytes with yaml.v3 and then lints and compiles the
// same file, and reports compile time ÷ parse time as "x-parse", so that
// the load of a shared machine affects both sides alike.
func BenchmarkLintCompileRatio10k(b *testing.B) {
	p := writeBig(b, 10_000)
	data, _ := os.ReadFile(p)
	var parse, comp time.Duration
	for b.Loop() {
		t0 := time.Now()
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if pl, _ := CompileFile(p, Options{}); pl == nil {
			b.Fatal("compile failed")
		}
		t2 := time.Now()
		parse += t1.Sub(t0)
		comp += t2.Sub(t1)
	}
	b.ReportMetric(float64(comp)/float64(parse), "x-parse")
	b.ReportMetric(float64(parse.Milliseconds())/float64(b.N), "parse-ms/op")
	b.ReportMetric(float64(comp.Milliseconds())/float64(b.N), "compile-ms/op")
}

// TestGeneratedFlowIsClean keeps the benchmark honest: the generated flow
// must lint without findings, so the benchmark measures the full pipeline.
func TestGeneratedFlowIsClean(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.csv"), []byte("a\n1\n"), 0o644)
	p := filepath.Join(dir, "big.flow.yml")
	os.WriteFile(p, genFlow(300), 0o644)
	pl, l := CompileFile(p, Options{})
	if pl == nil || len(l) > 0 {
		t.Fatalf("generated flow has findings:\n%s", dump(l))
	}
	if len(pl.Nodes) != 300 {
		t.Fatalf("plan has %d nodes", len(pl.Nodes))
	}
}

// BenchmarkCompileCLI10k is what `agentlab compile` does for a 10,000-node
// flow: lint and compile, then the canonical plan bytes and the plan hash.
func BenchmarkCompileCLI10k(b *testing.B) {
	p := writeBig(b, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		pl, _ := CompileFile(p, Options{})
		if pl == nil {
			b.Fatal("compile failed")
		}
		if _, err := pl.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}
