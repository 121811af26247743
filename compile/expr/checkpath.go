package expr

import (
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
)

// flatten splits a member chain a.b[c].d into its base and steps.
func flatten(n ast.Node) (ast.Node, []*ast.MemberNode) {
	var steps []*ast.MemberNode
	for {
		switch m := n.(type) {
		case *ast.ChainNode:
			n = m.Node
		case *ast.MemberNode:
			steps = append(steps, m)
			n = m.Node
		default:
			for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
				steps[i], steps[j] = steps[j], steps[i]
			}
			return n, steps
		}
	}
}

// staticStep returns the name of a member step known before run time.
func staticStep(m *ast.MemberNode) (name string, index, ok bool) {
	switch p := m.Property.(type) {
	case *ast.StringNode:
		return p.Value, false, true
	case *ast.IntegerNode:
		return strconv.Itoa(p.Value), true, true
	}
	return "", false, false
}

// path checks a name or member chain: scope, loop variables, metrics, and
// that fields are only read from maps and lists.
func (c *checker) path(n ast.Node) kind {
	base, steps := flatten(n)
	id, isIdent := base.(*ast.IdentifierNode)
	var k kind
	switch {
	case !isIdent:
		k = c.node(base)
	case isRoot(id.Value):
		k = c.root(id, steps)
	case c.ctx == Metric:
		k = kNumber
		c.metric(id)
	default:
		from, to := c.s.nodeSpan(id)
		c.issues = append(c.issues, CheckPath("EXPR", []PathSeg{{Name: id.Value, Static: true, Offset: from, End: to}}, c.sc)...)
		k = kAny
	}
	for i, st := range steps {
		if _, _, ok := staticStep(st); !ok {
			if pk := c.node(st.Property); pk != kAny && pk != kString && pk != kNumber {
				c.addFull(st.Property, CodeType, "index with a number or a string key",
					"an index must be a number or a string, but this is %s", pk)
			}
		}
		switch k {
		case kNumber, kBool, kNil:
			c.addAt(st, CodeType, "read fields only from maps and list items from lists",
				"cannot read a field or index of %s", k)
			return kAny
		case kString:
			k = kString
			continue
		}
		if isIdent && isRoot(id.Value) {
			k = c.stepKind(id.Value, steps[:i+1])
		} else {
			k = kAny
		}
	}
	return k
}

// root handles a path that starts with input, nodes, vars, item or index.
func (c *checker) root(id *ast.IdentifierNode, steps []*ast.MemberNode) kind {
	from, to := c.s.nodeSpan(id)
	segs := []PathSeg{{Name: id.Value, Static: true, Offset: from, End: to}}
	ref := Ref{Root: id.Value, Offset: from, End: to}
	for _, st := range steps {
		name, index, ok := staticStep(st)
		if !ok {
			break
		}
		sf, se := c.s.nodeSpan(st.Property)
		if se-sf >= 2 && strings.ContainsRune("'\"`", rune(c.s.src[sf])) {
			sf, se = sf+1, se-1 // ['name']: the span of the name without its quotes
		}
		segs = append(segs, PathSeg{Name: name, Index: index, Static: true, Offset: sf, End: se})
		ref.Path = append(ref.Path, name)
		ref.End = max(ref.End, se)
	}
	c.refs = append(c.refs, ref)
	if c.scoped {
		c.issues = append(c.issues, CheckPath("EXPR", segs, c.sc)...)
	}
	if c.ctx == Metric && id.Value == "nodes" && len(segs) > 2 && segs[2].Name == "rows" && !segs[2].Index {
		c.add(segs[2].Offset, segs[2].End, CodeUntraced,
			"read cells with cell(nodes."+segs[1].Name+", row, 'column') or col(nodes."+segs[1].Name+", 'column')",
			"a metric must not read rows directly: the values it uses would not be traced")
	}
	return rootKind(id.Value)
}

// rootKind is what is known about a root name.
func rootKind(name string) kind {
	switch name {
	case "input", "nodes", "vars":
		return kMap
	case "index":
		return kNumber
	}
	return kAny
}

// stepKind is what is known about root.steps: node outputs have a known
// shape (text, rows, columns, truncated). A node whose fields the scope
// does not list (transform, memory, subgraph…) may output any value, so
// nodes.<id> itself is only known to be a map when its fields are.
func (c *checker) stepKind(root string, steps []*ast.MemberNode) kind {
	if root != "nodes" {
		return kAny
	}
	names := make([]string, 0, len(steps))
	for _, st := range steps {
		name, _, ok := staticStep(st)
		if !ok {
			return kAny
		}
		names = append(names, name)
	}
	switch len(names) {
	case 1:
		if c.scoped && c.sc.Nodes[names[0]] != nil {
			return kMap
		}
		return kAny
	case 2:
		switch names[1] {
		case "text":
			return kString
		case "rows", "columns":
			return kList
		case "truncated":
			return kBool
		}
	case 3:
		if names[1] == "rows" {
			return kMap
		}
		if names[1] == "columns" {
			return kString
		}
	}
	return kAny
}

// metric checks a bare name in a metric expression.
func (c *checker) metric(id *ast.IdentifierNode) {
	if c.metrics == nil {
		c.metrics = map[string]bool{}
	}
	c.metrics[id.Value] = true
	if !c.scoped || c.sc.Metrics[id.Value] {
		return
	}
	names := sortedKeys(c.sc.Metrics)
	fix := fixFor(id.Value, names, "metrics here: "+listOf(names)+"; inputs and nodes start with input. or nodes.")
	c.addAt(id, CodeMetric, fix, "unknown metric %s", quote(id.Value))
}
