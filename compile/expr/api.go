// Package expr is the one whitelisted expression language of agentlab
// (built on expr-lang/expr), used by lint, compile and run alike, so that
// nothing passes lint and then fails to parse at run time.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package expr

import "github.com/agentlab/agentlab/diag"

// Context says where an expression appears; it decides which names and
// functions are in scope and what type the result must have.
type Context int

const (
	// Cond is a boolean condition: branch case `when`, loop `while`, skip `when`.
	Cond Context = iota
	// Transform is a transform node's `expr`: any value.
	Transform
	// Over is a loop's `over`: a list.
	Over
	// Metric is a metric expression: a number; col/cell/rows/sum/… and other metrics by name.
	Metric
)

// Issue is a finding inside one expression or template string. Offset and
// End are byte offsets into the string, so that the caller can turn them
// into a line and column inside the YAML scalar.
type Issue struct {
	Offset   int
	End      int
	Severity diag.Severity
	Code     string
	Message  string
	Fix      string
}

// Scope lists the names an expression or template may refer to.
type Scope struct {
	// Inputs are the flow's declared inputs.
	Inputs map[string]bool
	// Nodes maps every node id that has finished before this point to the
	// fields its output object has; a nil slice means "any field".
	Nodes map[string][]string
	// Subfields maps a node id of Nodes and one of its output fields to
	// the fields of that field's object, when they are known (the form of
	// a human node: nodes.gate.form.ticket); absent means "any field".
	Subfields map[string]map[string][]string
	// Vars are the variables assigned (assign_to, collect) upstream.
	Vars map[string]bool
	// Metrics are the metric names visible to a metric expression.
	Metrics map[string]bool
	// InLoop makes `item` and `index` visible.
	InLoop bool
}

// Cell is one snapshot cell that a metric expression read; metric values
// record them so they can be recomputed and traced. Row is the 0-based row
// of the snapshot. rows(nodes.x) reads no cell but the row count: it is
// reported as Row -1 with an empty Column and the count as Value.
type Cell struct {
	Node   string `json:"node"`
	Row    int    `json:"row"`
	Column string `json:"column"`
	Value  any    `json:"value"`
}
