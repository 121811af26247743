package expr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/expr-lang/expr/ast"

	"github.com/agentlab/agentlab/diag"
)

// Check lints one expression written in context ctx against the names in
// sc. It never stops at the first finding, never panics, and reports byte
// offsets into src. An expression with no error-severity issue compiles.
//
// A nil map in sc means "nothing of that kind is in scope": Check with the
// zero Scope reports every input, node and variable reference.
func Check(src string, ctx Context, sc Scope) []Issue {
	s := parseSource(src)
	if s.tree == nil {
		return sortIssues(s.issues)
	}
	c := &checker{s: s, ctx: ctx, sc: sc, scoped: true}
	c.run()
	return sortIssues(append(s.issues, c.issues...))
}

// checker walks a parsed expression, infers what it can about each value
// and reports everything outside the whitelist. With scoped false (as in
// Compile) it skips the checks that depend on the flow around the
// expression, so Compile accepts whatever Check accepts.
type checker struct {
	s       *source
	ctx     Context
	sc      Scope
	scoped  bool
	issues  []Issue
	refs    []Ref
	metrics map[string]bool
}

// sortIssues orders issues by offset, keeping the order of equal ones.
func sortIssues(is []Issue) []Issue {
	sort.SliceStable(is, func(i, j int) bool { return is[i].Offset < is[j].Offset })
	return is
}

// run checks the whole tree and the type the context requires.
func (c *checker) run() {
	k := c.node(c.s.tree)
	from, to := c.s.whole()
	switch c.ctx {
	case Cond:
		if k != kAny && k != kBool {
			c.add(from, to, CodeType, condFix(k), "a condition must be true or false, but this expression is %s", k)
		}
	case Over:
		if k != kAny && k != kList {
			fix := "give a list, for example vars.items or nodes.pull.rows"
			if k == kMap {
				fix = "iterate over keys(…) or values(…) of the map"
			}
			c.add(from, to, CodeType, fix, "a loop's over needs a list, but this expression is %s", k)
		}
	case Metric:
		if k != kAny && k != kNumber {
			c.add(from, to, CodeType, "aggregate to a number, for example sum(col(nodes.pull, 'gmv'))",
				"a metric must be a number, but this expression is %s", k)
		}
	}
}

// condFix suggests how to turn a value of kind k into a condition.
func condFix(k kind) string {
	switch k {
	case kString:
		return "compare it, for example vars.status == 'ok'"
	case kNumber:
		return "compare it, for example len(vars.items) > 0"
	case kNil:
		return "compare a value with nil, for example vars.answer != nil"
	}
	return "test it, for example len(vars.items) > 0"
}

// add reports an error at [from, to).
func (c *checker) add(from, to int, code, fix, format string, args ...any) {
	c.issues = append(c.issues, Issue{Offset: from, End: to, Severity: diag.Error, Code: code,
		Message: fmt.Sprintf(format, args...), Fix: fix})
}

// addAt reports an error at n's own token.
func (c *checker) addAt(n ast.Node, code, fix, format string, args ...any) {
	from, to := c.s.nodeSpan(n)
	c.add(from, to, code, fix, format, args...)
}

// addFull reports at the whole of n (an argument or operand).
func (c *checker) addFull(n ast.Node, code, fix, format string, args ...any) {
	from, to := c.s.fullSpan(n)
	c.add(from, to, code, fix, format, args...)
}

// unsupported reports syntax outside the whitelist.
func (c *checker) unsupported(n ast.Node, fix, what string) {
	c.addAt(n, CodeUnsupported, fix, "%s not supported in expressions", what)
}

// node checks n and returns what is known about its value.
func (c *checker) node(n ast.Node) kind {
	switch n := n.(type) {
	case nil:
		c.unsupported(nil, "rewrite the expression", "this construct is")
	case *ast.NilNode:
		return kNil
	case *ast.BoolNode:
		return kBool
	case *ast.IntegerNode, *ast.FloatNode:
		return kNumber
	case *ast.StringNode:
		c.stringLit(n)
		return kString
	case *ast.BytesNode:
		c.unsupported(n, "write a normal string: 'text'", "byte strings are")
	case *ast.IdentifierNode, *ast.MemberNode:
		return c.path(n)
	case *ast.ChainNode:
		return c.node(n.Node)
	case *ast.SliceNode:
		return c.slice(n)
	case *ast.UnaryNode:
		return c.unary(n)
	case *ast.BinaryNode:
		return c.binary(n)
	case *ast.CallNode:
		return c.callNode(n)
	case *ast.BuiltinNode:
		for _, a := range n.Arguments {
			if _, ok := a.(*ast.PredicateNode); ok {
				c.unsupported(n, "compute the list in a transform or code node", "closures ({# …}) are")
				return kAny
			}
		}
		return c.call(n.Name, n.Arguments, n)
	case *ast.ConditionalNode:
		return c.conditional(n)
	case *ast.ArrayNode:
		for _, e := range n.Nodes {
			c.node(e)
		}
		return kList
	case *ast.MapNode:
		for _, p := range n.Pairs {
			pair, ok := p.(*ast.PairNode)
			if !ok {
				c.node(p)
				continue
			}
			if _, ok := pair.Key.(*ast.StringNode); !ok {
				if k := c.node(pair.Key); k != kAny && k != kString {
					c.addFull(pair.Key, CodeType, "map keys are strings: write 'key': value",
						"a map key must be a string, but this is %s", k)
				}
			}
			c.node(pair.Value)
		}
		return kMap
	case *ast.PredicateNode, *ast.PointerNode:
		c.unsupported(n, "compute the list in a transform or code node", "closures ({# …}) are")
	case *ast.VariableDeclaratorNode:
		c.unsupported(n, "inline the value, or compute it in a transform node with assign_to", "let is")
	case *ast.SequenceNode:
		c.unsupported(n, "write a single expression", "several expressions separated by ; are")
	default:
		c.unsupported(n, "rewrite the expression with the documented operators", "this construct is")
	}
	return kAny
}

// stringLit flags `{{ … }}` in a string literal: expressions are never
// rendered, so the braces stay literal text and comparisons fail.
func (c *checker) stringLit(n *ast.StringNode) {
	if !strings.Contains(n.Value, "{{") {
		return
	}
	t := strings.TrimSpace(n.Value)
	fix := "build the text with +, for example 'week ' + input.week"
	if strings.HasPrefix(t, "{{") && strings.HasSuffix(t, "}}") && strings.Count(t, "{{") == 1 {
		fix = "refer to the value directly, without quotes or braces: " + strings.TrimSpace(t[2:len(t)-2])
	}
	msg := "this string contains {{ … }}, which is never rendered inside an expression"
	if c.ctx == Cond {
		msg += ", so a comparison with it can never be true"
	}
	c.addAt(n, CodeTemplateString, fix, "%s", msg)
}

// slice checks x[a:b]: only lists and text can be sliced.
func (c *checker) slice(n *ast.SliceNode) kind {
	k := c.node(n.Node)
	for _, b := range []ast.Node{n.From, n.To} {
		if b != nil {
			if bk := c.node(b); bk != kAny && bk != kNumber {
				c.addFull(b, CodeType, "slice with numbers: x[1:3]", "a slice bound must be a number, but this is %s", bk)
			}
		}
	}
	if k != kAny && k != kList && k != kString {
		c.addAt(n, CodeType, "slice only lists and strings", "cannot slice %s", k)
		return kAny
	}
	return k
}

// unary checks not, !, - and +.
func (c *checker) unary(n *ast.UnaryNode) kind {
	k := c.node(n.Node)
	switch n.Operator {
	case "!", "not":
		c.want(n.Node, k, kBool, "not needs a boolean; compare first, for example not (len(x) > 0)")
		return kBool
	case "-", "+":
		c.want(n.Node, k, kNumber, "use a number")
		return kNumber
	}
	c.unsupported(n, "use not, - or +", fmt.Sprintf("the operator %s is", quote(n.Operator)))
	return kAny
}

// want reports k when it is known and is not the wanted kind.
func (c *checker) want(n ast.Node, k, wanted kind, fix string) {
	if k != kAny && k != wanted {
		c.addFull(n, CodeType, fix, "expected %s here, but this is %s", wanted, k)
	}
}

// binary checks an operator against what is known of both sides.
func (c *checker) binary(n *ast.BinaryNode) kind {
	l, r := c.node(n.Left), c.node(n.Right)
	op := n.Operator
	bad := func(fix, format string, args ...any) { c.addAt(n, CodeType, fix, format, args...) }
	switch op {
	case "and", "or", "&&", "||":
		for _, side := range []struct {
			n ast.Node
			k kind
		}{{n.Left, l}, {n.Right, r}} {
			if side.k != kAny && side.k != kBool {
				c.addFull(side.n, CodeType, "compare first, for example len(x) > 0 "+op+" vars.ok == true",
					"%s needs booleans on both sides, but this is %s", quote(op), side.k)
			}
		}
		return kBool
	case "==", "!=":
		if l != kAny && r != kAny && l != kNil && r != kNil && l != r {
			bad("convert one side, for example string(x) == '3' or int(x) == 3",
				"comparing %s with %s is always %v", l, r, op == "!=")
		}
		return kBool
	case "<", ">", "<=", ">=":
		ok := func(k kind) bool { return k == kAny || k == kNumber || k == kString }
		if !ok(l) || !ok(r) || (l != kAny && r != kAny && l != r) {
			bad("order numbers with numbers and strings with strings", "cannot order %s and %s with %s", l, r, quote(op))
		}
		return kBool
	case "+":
		switch {
		case l == kAny || r == kAny:
			if l == kNumber || r == kNumber {
				return kNumber
			}
			return kAny
		case l == r && (l == kNumber || l == kString || l == kList):
			return l
		}
		bad("add numbers to numbers; join text with string(x) + 'text'", "cannot add %s and %s", l, r)
		return kAny
	case "-", "*", "/", "%", "**", "^":
		for _, k := range []kind{l, r} {
			if k != kAny && k != kNumber {
				bad("use numbers on both sides", "%s needs numbers, but one side is %s", quote(op), k)
				break
			}
		}
		return kNumber
	case "in":
		if r != kAny && r != kList && r != kMap {
			fix := "test membership in a list or a map"
			if r == kString {
				fix = "test text with contains(text, part)"
			}
			bad(fix, "in needs a list or a map on the right, but this is %s", r)
		}
		return kBool
	case "contains", "startsWith", "endsWith":
		spec := funcs[op]
		if !spec.params[0].has(l) {
			bad("use "+spec.usage, "%s needs text on the left, but this is %s", quote(op), l)
		}
		return kBool
	case "??":
		return join(l, r)
	case "matches":
		c.unsupported(n, "use contains, startsWith or endsWith", "regular expressions (matches) are")
	case "..":
		c.unsupported(n, "write the list out: [1, 2, 3]", "ranges (..) are")
	case "|":
		c.addAt(n, CodePipe, "call the function instead: f(x)", "filter pipes (x | f) belong to templates, not expressions")
	default:
		c.unsupported(n, "use the documented operators", fmt.Sprintf("the operator %s is", quote(op)))
	}
	return kAny
}

// join is what is known of a value that is one of two kinds.
func join(a, b kind) kind {
	if a == kNil {
		return b
	}
	if a == b {
		return a
	}
	return kAny
}

// conditional checks cond ? a : b; if/else blocks and ?: are refused.
func (c *checker) conditional(n *ast.ConditionalNode) kind {
	// The parser positions a conditional after its end; report the whole.
	from, to := c.s.fullSpan(n)
	if !n.Ternary {
		c.add(from, to, CodeUnsupported, "write cond ? a : b", "if/else blocks are not supported in expressions")
		return kAny
	}
	if n.Exp1 == n.Cond {
		c.add(from, to, CodeUnsupported, "write a ?? b for a fallback value", "the ?: operator is not supported in expressions")
		return kAny
	}
	c.want(n.Cond, c.node(n.Cond), kBool, "the part before ? must be true or false; compare first")
	return join(c.node(n.Exp1), c.node(n.Exp2))
}
