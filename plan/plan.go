// Package plan is the compiled, immutable form of a flow: what `compile`
// writes and what `run` executes. Its canonical JSON (package canon) is
// hashed with BLAKE3 to give the plan hash; positions and comments are not
// part of it, so reformatting a flow does not change the hash.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package plan

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/agentlab/agentlab/hashid"
)

// FormatVersion is the version of the plan JSON layout.
const FormatVersion = 1

// Tiers, weakest first.
const (
	TierExploratory = "exploratory"
	TierPublished   = "published"
	TierGoverned    = "governed"
)

// Plan is a compiled flow.
type Plan struct {
	Format      int               `json:"format"`
	Agentlab    int               `json:"agentlab"`
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Version     string            `json:"version,omitempty"`
	Tier        string            `json:"tier"`
	Preset      Preset            `json:"preset"`
	Inputs      map[string]Input  `json:"inputs"`
	Sources     map[string]Source `json:"sources"`
	Settings    Settings          `json:"settings"`
	Nodes       []Node            `json:"nodes"`
	Edges       []Edge            `json:"edges"`
	// Cards holds every metric card a metrics node pins, keyed "name@version".
	Cards map[string]Card `json:"cards,omitempty"`
	// Subflows holds the compiled plan of every subgraph, keyed by its plan hash.
	Subflows map[string]*Plan `json:"subflows,omitempty"`
	// Tools holds the custom tools the flow declares, keyed by name, in the
	// form run/tools.DecodeCustom reads ({name, description, effect,
	// params, http | command}). Absent when none are declared, so that
	// such plans keep their hash.
	Tools map[string]map[string]any `json:"tools,omitempty"`
}

// Preset is the resolved list of preset rows (docs/presets.md).
type Preset struct {
	Name string      `json:"name"`
	Rows []PresetRow `json:"rows"`
}

// PresetRow is one row of a preset.
type PresetRow struct {
	ID       string         `json:"id"`
	Use      string         `json:"use"`
	Disabled bool           `json:"disabled,omitempty"`
	Config   map[string]any `json:"config,omitempty"`
}

// Input declares one flow input.
type Input struct {
	Type        string `json:"type"` // string|number|integer|boolean|object|array
	Required    bool   `json:"required,omitempty"`
	Default     any    `json:"default,omitempty"`
	Description string `json:"description,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
}

// Source declares data the flow may query; each becomes a SQLite table
// named after its key and a db_query__<name> tool.
type Source struct {
	Kind        string   `json:"kind"` // csv|sqlite
	Path        string   `json:"path"` // relative to the flow file's directory
	Table       string   `json:"table,omitempty"`
	MaskColumns []string `json:"mask_columns,omitempty"`
	RowCap      int      `json:"row_cap,omitempty"`
}

// Settings are the run budgets and limits.
type Settings struct {
	MaxGraphSteps int     `json:"max_graph_steps"`
	RunTimeoutS   float64 `json:"run_timeout_s"`
	Parallel      int     `json:"parallel"`
	RowCap        int     `json:"row_cap"`
}

// DefaultSettings are used for every field a flow leaves out.
var DefaultSettings = Settings{MaxGraphSteps: 200, RunTimeoutS: 600, Parallel: 4, RowCap: 1000}

// Retry says how often a failed node is tried again.
type Retry struct {
	Max      int     `json:"max"`
	BackoffS float64 `json:"backoff_s"`
}

// Node is one step of the graph. Fields common to every type are typed;
// the fields of a particular type (docs/language.md) live in Spec, with defaults
// filled in by compile.
type Node struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Title    string         `json:"title,omitempty"`
	AssignTo string         `json:"assign_to,omitempty"`
	When     string         `json:"when,omitempty"`
	Retry    Retry          `json:"retry"`
	OnError  string         `json:"on_error"` // fail|continue
	TimeoutS float64        `json:"timeout_s,omitempty"`
	Spec     map[string]any `json:"spec"`
	// Body is the graph a loop node runs once per iteration.
	Body *Graph `json:"body,omitempty"`
}

// Graph is a set of nodes and the edges between them.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Edge connects two nodes; Port names the output of a branch or gate node.
type Edge struct {
	From string `json:"from"`
	Port string `json:"port,omitempty"`
	To   string `json:"to"`
}

// Card is a resolved metric card.
type Card struct {
	Name    string            `json:"name"`
	Version int               `json:"version"`
	Metrics map[string]Metric `json:"metrics"`
}

// Metric is one metric definition.
type Metric struct {
	Expr     string `json:"expr"`
	Unit     string `json:"unit,omitempty"`
	Decimals *int   `json:"decimals,omitempty"`
	Format   string `json:"format,omitempty"` // number|percent|currency
}

// Canonical returns the canonical JSON bytes of p. A caller that needs
// the hash too calls Encode, which builds the bytes once for both.
func (p *Plan) Canonical() ([]byte, error) {
	enc, err := p.Encode()
	return enc.Bytes, err
}

// Hash returns the plan hash: BLAKE3 of the canonical bytes.
func (p *Plan) Hash() (hashid.ID, error) {
	enc, err := p.Encode()
	return enc.Hash, err
}

// Read loads a plan file written by compile.
func Read(path string) (*Plan, hashid.ID, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, hashid.ID{}, err
	}
	return Decode(b)
}

// Decode parses plan JSON and returns the plan with its hash (computed over
// the canonical form, so a pretty-printed plan file has the same hash).
func Decode(b []byte) (*Plan, hashid.ID, error) {
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, hashid.ID{}, fmt.Errorf("plan: %w", err)
	}
	if p.Format != FormatVersion {
		return nil, hashid.ID{}, fmt.Errorf("plan: format %d is not supported (want %d); recompile the flow", p.Format, FormatVersion)
	}
	h, err := p.Hash()
	if err != nil {
		return nil, hashid.ID{}, err
	}
	return &p, h, nil
}

// NodeByID finds a top-level node.
func (g *Graph) NodeByID(id string) (*Node, bool) {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return &g.Nodes[i], true
		}
	}
	return nil, false
}

// Graph returns the plan's top-level graph.
func (p *Plan) Graph() *Graph { return &Graph{Nodes: p.Nodes, Edges: p.Edges} }

// Str returns a string field of the node's spec.
func (n *Node) Str(key string) string {
	s, _ := n.Spec[key].(string)
	return s
}

// Int returns an integer field of the node's spec (JSON numbers decode as float64).
func (n *Node) Int(key string) int {
	switch v := n.Spec[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	case json.Number:
		i, _ := v.Int64()
		return int(i)
	}
	return 0
}

// Float returns a numeric field of the node's spec.
func (n *Node) Float(key string) float64 {
	switch v := n.Spec[key].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case json.Number:
		f, _ := v.Float64()
		return f
	}
	return 0
}

// Bool returns a boolean field of the node's spec.
func (n *Node) Bool(key string) bool {
	b, _ := n.Spec[key].(bool)
	return b
}

// Map returns an object field of the node's spec.
func (n *Node) Map(key string) map[string]any {
	m, _ := n.Spec[key].(map[string]any)
	return m
}

// List returns an array field of the node's spec.
func (n *Node) List(key string) []any {
	l, _ := n.Spec[key].([]any)
	return l
}
