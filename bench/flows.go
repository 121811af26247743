package bench

import (
	"fmt"
	"strings"
)

// CompileFlow is an n-node flow shaped like real ones, for the lint and
// compile benchmark: a chain with a join every tenth node, mixing
// transforms (an expression each), llm nodes (a template each) and tool
// nodes against a CSV source, every node reading the node before it so that
// every expression and template has a non-trivial scope. It lints without
// findings (the source file s.csv must sit beside it: see CSVSource), so
// the benchmark runs the whole pipeline rather than stopping at an error.
func CompileFlow(n int) []byte {
	var b strings.Builder
	b.Grow(n * 110)
	b.WriteString("agentlab: 1\nname: big\ninputs:\n  q: {type: string, required: true}\nsources:\n  s: {kind: csv, path: s.csv}\nnodes:\n")
	for i := 0; i < n; i++ {
		switch {
		case i == 0:
			fmt.Fprintf(&b, "  - id: n%d\n    type: input\n", i)
		case i == n-1:
			fmt.Fprintf(&b, "  - id: n%d\n    type: output\n    fields: {last: \"{{ nodes.n%d }}\"}\n", i, i-1)
		case i%5 == 0:
			fmt.Fprintf(&b, "  - id: n%d\n    type: llm\n    prompt: \"Step %d of {{ input.q }}: {{ nodes.n%d }}\"\n    temperature: 0.1\n", i, i, i-1)
		case i%7 == 0:
			fmt.Fprintf(&b, "  - id: n%d\n    type: tool\n    tool: db_query__s\n    args: {sql: \"SELECT * FROM s LIMIT %d\"}\n", i, i)
		default:
			fmt.Fprintf(&b, "  - id: n%d\n    type: transform\n    expr: \"len(string(nodes.n%d)) + %d\"\n", i, i-1, i)
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

// CSVSource is the content of s.csv, the data source CompileFlow names.
const CSVSource = "a\n1\n"

// ChainFlow is n transform nodes in a line, each adding one to the output
// of the node before it: the engine benchmark's worst case for
// parallelism, since every node waits for the previous one's durable
// node.finished.
func ChainFlow(n int) []byte {
	var b strings.Builder
	b.Grow(n * 80)
	fmt.Fprintf(&b, "agentlab: 1\nname: chain\nsettings: {max_graph_steps: %d}\nnodes:\n", n)
	for i := 0; i < n; i++ {
		e := "1"
		if i > 0 {
			e = fmt.Sprintf("nodes.n%d + 1", i-1)
		}
		fmt.Fprintf(&b, "  - id: n%d\n    type: transform\n    expr: \"%s\"\n", i, e)
	}
	b.WriteString("edges:\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  - n%d -> n%d\n", i-1, i)
	}
	return []byte(b.String())
}

// FanFlow is n transform nodes as a fan-out/fan-in: one source, n-2
// independent workers that each read it, and one sink after all of them.
func FanFlow(n int) []byte {
	if n < 3 {
		n = 3
	}
	w := n - 2
	var b strings.Builder
	b.Grow(n * 100)
	fmt.Fprintf(&b, "agentlab: 1\nname: fan\nsettings: {max_graph_steps: %d}\nnodes:\n  - id: src\n    type: transform\n    expr: \"1\"\n", n)
	for i := 0; i < w; i++ {
		fmt.Fprintf(&b, "  - id: w%d\n    type: transform\n    expr: \"nodes.src * 2 + %d\"\n", i, i)
	}
	fmt.Fprintf(&b, "  - id: sink\n    type: transform\n    expr: \"nodes.w0 + nodes.w%d\"\n", w-1)
	b.WriteString("edges:\n")
	for i := 0; i < w; i++ {
		fmt.Fprintf(&b, "  - src -> w%d\n  - w%d -> sink\n", i, i)
	}
	return []byte(b.String())
}
