package compile

import (
	"github.com/agentlab/agentlab/run/tools"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
)

// flow is one flow file after decoding: its top-level fields, every node
// (loop bodies included, each node in exactly one graph) and the graphs.
type flow struct {
	// secretHosts are the operator's [secrets] bindings, read when a
	// custom tool's header first names a secret.
	secretHosts tools.SecretBindings
	path        string // as given
	dir         string // directory of the file
	src         *source
	root        *V
	l           *diag.List
	dec         *decoder

	top    map[string]any
	nodes  []*nodeInfo
	graphs []*graphInfo // graphs[0] is the top-level graph
	byID   map[string]int
	broken map[string]bool // ids of nodes whose type could not be read
	roots  []string        // where the files the flow names may be (paths.go)

	// Filled by the graph pass.
	preds, succs adjacency
	outPorts     []map[string]bool
	topo         []int32 // position in its graph's topological order, -1 on a cycle

	// Scope machinery (scope.go): the reachability search reuses stamp
	// and stack across queries, so a query allocates nothing.
	stamp     []uint32
	gen       uint32
	stack     []int32
	assigners map[string][]int // variable → nodes that set it
	inputs    map[string]bool

	cards map[string]*cardRef // by node id: the card a metrics node pins (cards.go)
	// subOut holds, by subgraph node id, the fields its subflow's output
	// nodes return (subflow.go), so that expressions reading the subgraph
	// are checked against them.
	subOut map[string][]string
	// subSources are the data sources declared by subflows, their paths
	// made relative to this flow's directory; the plan declares them next
	// to the flow's own, so that one database serves the whole run.
	subSources map[string]plan.Source
	// customTools maps each tool declared under `tools:` to its effect
	// (read or write), for the checks of the nodes that name it.
	customTools map[string]string

	tier    string // declared tier
	effTier string // the stricter of declared and Options.Tier
}

// nodeInfo is one decoded node.
type nodeInfo struct {
	idx    int
	id     string
	typ    string
	v      *V
	fields map[string]any // common and type fields, defaults filled
	graph  int            // graph the node is in
	body   int            // body graph of a loop, else -1
}

// graphInfo is a list of nodes and the edges between them.
type graphInfo struct {
	owner int // loop node whose body this is, -1 for the top level
	nodes []int
	edges []edgeInfo
}

// edgeInfo is one edge with what locates its parts: for an edge string
// its scalar and the byte offsets of the parts in it, for an edge mapping
// the mapping (its from, port and to values are the parts).
type edgeInfo struct {
	from, port, to          string
	v                       *V
	fromOff, portOff, toOff int32
	str                     bool // written as "a -> b"
}

// str returns a decoded string field ("" when absent).
func (n *nodeInfo) str(key string) string { s, _ := n.fields[key].(string); return s }

// decodeFlow runs the schema pass over a loaded flow.
func decodeFlow(path string, root *V, src *source, l *diag.List) *flow {
	f := &flow{path: path, dir: filepath.Dir(path), src: src, root: root, l: l, byID: map[string]int{}, broken: map[string]bool{}}
	f.dec = &decoder{src: src, l: l, node: -1}
	f.top = f.dec.object(root, flowSchema, "")
	if f.top == nil {
		return f
	}
	if n, ok := f.top["agentlab"].(int64); ok && n != 1 {
		f.dec.errf(root.Get("agentlab"), "E-SCHEMA-VERSION", "write `agentlab: 1`; this compiler reads language version 1",
			"language version %d is not supported", n)
	}
	f.tier, _ = f.top["tier"].(string)
	f.checkSources()
	f.checkInputs()
	f.checkCustomTools()
	f.graphs = append(f.graphs, &graphInfo{owner: -1})
	if nv := root.Get("nodes"); !nv.IsNull() {
		f.decodeGraph(0, nv, root.Get("edges"))
	} else if k := root.KeyOf("nodes"); k != nil {
		f.dec.errf(k, "E-SCHEMA-REQUIRED", "list at least one node under `nodes:`", "flow has no nodes")
	} else {
		f.dec.errf(root, "E-SCHEMA-REQUIRED", "add `nodes:` with the flow's steps", "flow is missing the required key \"nodes\"")
	}
	f.checkNodePaths()
	return f
}

// decodeGraph decodes the nodes and edges of graph g.
func (f *flow) decodeGraph(g int, nodesV, edgesV *V) {
	if nodesV.Kind != vSeq {
		f.dec.errf(nodesV, "E-SCHEMA-TYPE", "write `nodes:` as a list of `- id: …` mappings",
			"\"nodes\" must be a list, found %s", nodesV.kindName())
	} else {
		f.nodes = slices.Grow(f.nodes, len(nodesV.Items()))
		f.graphs[g].nodes = slices.Grow(f.graphs[g].nodes, len(nodesV.Items()))
		for _, nv := range nodesV.Items() {
			f.decodeNode(g, nv)
		}
	}
	if edgesV.IsNull() {
		return
	}
	if edgesV.Kind != vSeq {
		f.dec.errf(edgesV, "E-SCHEMA-TYPE", "write `edges:` as a list such as `- a -> b`",
			"\"edges\" must be a list, found %s", edgesV.kindName())
		return
	}
	f.graphs[g].edges = slices.Grow(f.graphs[g].edges, len(edgesV.Items()))
	for _, ev := range edgesV.Items() {
		f.graphs[g].edges = f.parseEdge(f.graphs[g].edges, ev)
	}
}

// decodeNode decodes one node mapping; its type picks the schema.
func (f *flow) decodeNode(g int, v *V) {
	if v.Kind != vMap {
		f.dec.errf(v, "E-SCHEMA-TYPE", "write each node as a mapping with at least `id:` and `type:`",
			"a node must be a mapping, found %s", v.kindName())
		return
	}
	tv := v.Get("type")
	// A node that cannot be decoded is remembered by id, so that edges
	// and references to it do not repeat the error as "unknown node".
	if iv := v.Get("id"); iv != nil && iv.Kind == vScalar {
		f.broken[iv.Str] = true
	}
	if tv.IsNull() {
		f.dec.errf(v, "E-SCHEMA-REQUIRED", "add `type:` with one of: "+strings.Join(nodeTypes, ", "),
			"node is missing the required key \"type\"")
		return
	}
	typ := tv.Str
	schemaOf := nodeSchemas[typ]
	if schemaOf == nil || tv.Kind != vScalar {
		f.dec.errf(tv, "E-SCHEMA-NODE-TYPE", "use one of: "+strings.Join(sortedTypes(), ", "),
			"unknown node type %q; %sthere are 18 node types", tv.Str, didYouMean(tv.Str, nodeTypes))
		return
	}
	sc := schemaOf()
	if iv := v.Get("id"); iv != nil {
		delete(f.broken, iv.Str)
	}
	n := &nodeInfo{idx: len(f.nodes), typ: typ, v: v, graph: g, body: -1}
	f.nodes = append(f.nodes, n)
	f.graphs[g].nodes = append(f.graphs[g].nodes, n.idx)
	f.dec.node = n.idx
	if typ == "metrics" {
		f.dec.metricNames = metricNamesOf(v.Get("metrics"))
	}
	n.fields = f.dec.object(v, sc, "")
	f.dec.metricNames = nil
	if n.fields == nil {
		n.fields = map[string]any{}
	}
	n.id = n.str("id")
	if n.id != "" {
		if prev, dup := f.byID[n.id]; dup {
			pv := f.nodes[prev].v.Get("id")
			f.dec.errf(v.Get("id"), "E-GRAPH-DUP-ID", "give every node its own id",
				"node id %q is already used at line %d, column %d", n.id, pv.Line, pv.Col)
		} else {
			f.byID[n.id] = n.idx
		}
	}
	f.checkNodeFields(n)
	if typ == "loop" {
		if bv := v.Get("body"); bv.IsNull() {
			at := v
			if k := v.KeyOf("body"); k != nil {
				at = k
			}
			f.dec.errf(at, "E-SCHEMA-REQUIRED", "give the loop a body: `body: {nodes: [...], edges: [...]}`",
				"loop %q has no body", n.id)
		} else {
			body := f.dec.object(bv, bodySchema, "body")
			if body != nil {
				n.body = len(f.graphs)
				f.graphs = append(f.graphs, &graphInfo{owner: n.idx})
				if nv := bv.Get("nodes"); !nv.IsNull() {
					f.decodeGraph(n.body, nv, bv.Get("edges"))
				} else {
					f.dec.errf(bv, "E-SCHEMA-REQUIRED", "list at least one node under the body's `nodes:`", "loop body has no nodes")
				}
			}
		}
	}
	f.dec.node = -1
}

// metricNamesOf returns the metric names of an inline metric set.
func metricNamesOf(v *V) map[string]bool {
	m := map[string]bool{}
	if v != nil && v.Kind == vMap {
		for _, k := range v.Keys() {
			m[k.Str] = true
		}
	}
	return m
}

// checkSources warns about data files that do not exist (yet): the flow
// is still valid, but a run will fail when it loads the source.
func (f *flow) checkSources() {
	srcs, _ := f.top["sources"].(map[string]any)
	sv := f.root.Get("sources")
	for name, x := range srcs {
		m, _ := x.(map[string]any)
		p, _ := m["path"].(string)
		if p == "" {
			continue
		}
		if !f.inside(sv.Get(name).Get("path"), p, "the data file of source "+name) {
			continue
		}
		full := p
		if !filepath.IsAbs(p) {
			full = filepath.Join(f.dir, p)
		}
		if _, err := os.Stat(full); err != nil {
			f.l.Warnf(f.src.file, sv.Get(name).Get("path").Pos(), "W-SOURCE-MISSING", "check the path; it is relative to the flow file's directory",
				"data file %q of source %q does not exist", p, name)
		}
	}
}

// checkInputs checks that each input's default and enum values have the
// input's type, and that the default is one of the enum values.
func (f *flow) checkInputs() {
	ins, _ := f.top["inputs"].(map[string]any)
	iv := f.root.Get("inputs")
	for name, x := range ins {
		m, _ := x.(map[string]any)
		typ, _ := m["type"].(string)
		at := iv.Get(name)
		if d, ok := m["default"]; ok && d != nil && !hasType(d, typ) {
			f.dec.errf(at.Get("default"), "E-SCHEMA-TYPE", "write a default of type "+typ,
				"default of input %q is not of its type %s", name, typ)
		}
		enum, _ := m["enum"].([]any)
		if ev := at.Get("enum"); ev != nil && ev.Kind != vSeq {
			f.dec.errf(ev, "E-SCHEMA-TYPE", "write enum as a list of allowed values", "enum of input %q must be a list", name)
			continue
		}
		for i, e := range enum {
			if !hasType(e, typ) {
				f.dec.errf(at.Get("enum").Items()[i], "E-SCHEMA-TYPE", "write values of type "+typ,
					"enum value of input %q is not of its type %s", name, typ)
			}
		}
		if d, ok := m["default"]; ok && d != nil && len(enum) > 0 && !slices.ContainsFunc(enum, func(e any) bool { return e == d }) {
			f.dec.errf(at.Get("default"), "E-SCHEMA-ENUM", "make the default one of the enum values",
				"default of input %q is not one of its enum values", name)
		}
	}
}

// hasType reports whether a decoded value fits an input type.
func hasType(x any, typ string) bool {
	switch typ {
	case "string":
		_, ok := x.(string)
		return ok
	case "number":
		switch x.(type) {
		case int64, float64:
			return true
		}
		return false
	case "integer":
		switch v := x.(type) {
		case int64:
			return true
		case float64:
			return v == float64(int64(v))
		}
		return false
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	}
	return true
}
