package expr

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr/ast"
)

// callNode handles calls: only plain function names may be called.
func (c *checker) callNode(n *ast.CallNode) kind {
	switch callee := n.Callee.(type) {
	case *ast.IdentifierNode:
		return c.call(callee.Value, n.Arguments, callee)
	case *ast.MemberNode:
		name, _, _ := staticStep(callee)
		c.node(callee.Node)
		for _, a := range n.Arguments {
			c.node(a)
		}
		fix := "values have no methods; use a function: " + listOf(funcNames(c.ctx))
		if _, ok := funcs[name]; ok {
			args := []string{callee.Node.String()}
			for _, a := range n.Arguments {
				args = append(args, a.String())
			}
			fix = fmt.Sprintf("call the function instead: %s(%s)", name, strings.Join(args, ", "))
		}
		c.addAt(callee, CodeMethod, fix, "method calls such as .%s() are not allowed", name)
	default:
		c.unsupported(n, "call a function by name, for example len(x)", "calling a computed value is")
	}
	return kAny
}

// call checks a call to a named function: whitelist, context, arity and
// the kinds of its arguments.
func (c *checker) call(name string, args []ast.Node, at ast.Node) kind {
	spec, ok := funcs[name]
	switch {
	case !ok:
		fix := "available functions: " + strings.Join(funcNames(c.ctx), ", ")
		if s := suggestFunc(name, c.ctx); s != "" {
			fix = "did you mean " + quote(s) + "?"
		}
		c.addAt(at, CodeFunc, fix, "unknown function %s", quote(name))
	case spec.metric && c.ctx != Metric:
		c.addAt(at, CodeMetricFunc, "move the computation into a metrics node, or use len/sum/… on nodes.<id>.rows",
			"%s is only available in metric expressions", name)
		ok = false
	case len(args) < spec.min || (spec.max >= 0 && len(args) > spec.max):
		c.addAt(at, CodeArgs, "call it as "+spec.usage, "%s takes %s, got %d", name, arity(spec), len(args))
		ok = false
	}
	kinds := make([]kind, len(args))
	for i, a := range args {
		kinds[i] = c.node(a)
	}
	if !ok {
		return kAny
	}
	for i, a := range args {
		p := spec.params[min(i, len(spec.params)-1)]
		if !p.has(kinds[i]) {
			c.addFull(a, CodeType, "call it as "+spec.usage, "%s cannot take %s as argument %d", name, kinds[i], i+1)
		}
	}
	if spec.metric {
		c.snapshotArgs(name, args)
	}
	return spec.result
}

// suggestFunc finds the function meant by an unknown name: a typo of a
// function, or a name (or typo of a name) from another language.
func suggestFunc(name string, ctx Context) string {
	visible := func(f string) bool { return !funcs[f].metric || ctx == Metric }
	if a, ok := aliases[name]; ok && visible(a) {
		return a
	}
	cands := funcNames(ctx)
	for a, f := range aliases {
		if visible(f) {
			cands = append(cands, a)
		}
	}
	s := Suggest(name, cands)
	if a, ok := aliases[s]; ok {
		return a
	}
	return s
}

// arity describes how many arguments f takes.
func arity(f funcSpec) string {
	switch {
	case f.max < 0:
		return fmt.Sprintf("at least %d argument(s)", f.min)
	case f.min == f.max && f.min == 1:
		return "1 argument"
	case f.min == f.max:
		return fmt.Sprintf("%d arguments", f.min)
	}
	return fmt.Sprintf("%d to %d arguments", f.min, f.max)
}

// snapshotArgs checks that col/cell/rows read a node's snapshot by id and
// a column by a quoted name, so the cells a metric reads are known.
func (c *checker) snapshotArgs(name string, args []ast.Node) {
	id, ok := snapshotNode(args[0])
	if !ok {
		c.addFull(args[0], CodeSnapshot, "pass the node itself, for example "+funcs[name].usage,
			"the first argument of %s must be a node reference nodes.<id>", name)
	} else if c.scoped {
		if fields, known := c.sc.Nodes[id]; known && fields != nil && !contains(fields, "rows") {
			c.addFull(args[0], CodeSnapshot, "read a tool or merge node's output",
				"node %s has no rows: only tool and merge nodes produce snapshots", quote(id))
		}
	}
	colArg := -1
	switch name {
	case "col":
		colArg = 1
	case "cell":
		colArg = 2
	}
	if colArg >= 0 {
		if _, ok := args[colArg].(*ast.StringNode); !ok {
			c.addFull(args[colArg], CodeSnapshot, "write the column name in quotes, for example 'gmv'",
				"the column of %s must be a quoted name", name)
		}
	}
}

// snapshotNode returns id when n is exactly nodes.<id>.
func snapshotNode(n ast.Node) (string, bool) {
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return "", false
	}
	root, ok := m.Node.(*ast.IdentifierNode)
	if !ok || root.Value != "nodes" {
		return "", false
	}
	name, index, ok := staticStep(m)
	return name, ok && !index
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
