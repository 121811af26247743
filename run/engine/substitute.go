package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/compile/expr"
	erender "github.com/agentlab/agentlab/evidence/render"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// substitute writes a metric's formula with every input replaced by its
// value, in the plain arithmetic that erender.Calc (and its browser twin)
// evaluates: numbers, + - * / and parentheses, list literals with null for
// NULL cells, and sum, avg, min, max, count, round, abs.
//
//   - a metric named in the formula becomes its value;
//   - col(nodes.x, 'c') becomes the list of the column's values;
//   - cell(nodes.x, r, 'c') becomes that value, rows(nodes.x) the row count;
//   - every binary operation is parenthesised, so precedence never depends
//     on the reader.
//
// When the formula uses anything outside that arithmetic (a comparison, a
// conditional, %, a text value) the whole formula is substituted by its
// value: the verifier can then only confirm the recorded number, and the
// cells the metric read are still listed. The result always evaluates
// (erender.Calc) to value within erender.SameValue; if it would not, the
// value itself is returned, so a verifier never sees a formula that
// disagrees with the recorded number.
func substitute(src string, env map[string]any, metrics map[string]float64, value float64) string {
	whole := numLit(value)
	tree, err := parser.Parse(strings.TrimSpace(src))
	if err != nil {
		return whole
	}
	s := &substituter{env: env, metrics: metrics}
	out, err := s.node(tree.Node)
	if err != nil {
		return whole
	}
	got, err := erender.Calc(out)
	if err != nil || !erender.SameValue(got, value) {
		return whole
	}
	return out
}

type substituter struct {
	env     map[string]any
	metrics map[string]float64
}

func (s *substituter) node(n ast.Node) (string, error) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		return strconv.Itoa(n.Value), nil
	case *ast.FloatNode:
		return numLit(n.Value), nil
	case *ast.IdentifierNode:
		if v, ok := s.metrics[n.Value]; ok {
			return numLit(v), nil
		}
		return "", fmt.Errorf("name %s", n.Value)
	case *ast.UnaryNode:
		if n.Operator != "-" && n.Operator != "+" {
			return s.eval(n)
		}
		x, err := s.node(n.Node)
		if err != nil {
			return "", err
		}
		return "(" + n.Operator + x + ")", nil
	case *ast.BinaryNode:
		switch n.Operator {
		case "+", "-", "*", "/":
		default:
			return s.eval(n)
		}
		l, err := s.node(n.Left)
		if err != nil {
			return "", err
		}
		r, err := s.node(n.Right)
		if err != nil {
			return "", err
		}
		return "(" + l + " " + n.Operator + " " + r + ")", nil
	case *ast.ArrayNode:
		parts := make([]string, len(n.Nodes))
		for i, x := range n.Nodes {
			p, err := s.node(x)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			return "", fmt.Errorf("call")
		}
		return s.call(id.Value, n.Arguments, n)
	case *ast.BuiltinNode:
		return s.call(n.Name, n.Arguments, n)
	}
	return s.eval(n)
}

func (s *substituter) call(name string, args []ast.Node, n ast.Node) (string, error) {
	switch name {
	case "col", "cell":
		return s.cells(name, n)
	case "rows":
		return s.eval(n)
	case "sum", "avg", "min", "max", "count", "round", "abs":
		parts := make([]string, len(args))
		for i, a := range args {
			p, err := s.node(a)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return name + "(" + strings.Join(parts, ", ") + ")", nil
	}
	return "", fmt.Errorf("function %s", name)
}

// cells writes what col or cell reads, as the trace of the metric
// evaluator reports it: a list of the column's values, or one value.
func (s *substituter) cells(name string, n ast.Node) (string, error) {
	p, err := expr.Compile("count(["+n.String()+"])", expr.Metric)
	if err != nil {
		return "", err
	}
	var vals []any
	if _, err := p.EvalMetric(s.env, nil, func(c expr.Cell) { vals = append(vals, c.Value) }); err != nil {
		return "", err
	}
	if name == "cell" {
		if len(vals) != 1 {
			return "", fmt.Errorf("cell read %d values", len(vals))
		}
		return literal(vals[0])
	}
	if vals == nil {
		vals = []any{}
	}
	return literal(vals)
}

// eval evaluates a numeric sub-expression that reads no other metric (a
// row count, a member access) and writes its value as a literal.
func (s *substituter) eval(n ast.Node) (string, error) {
	p, err := expr.Compile(n.String(), expr.Metric)
	if err != nil {
		return "", err
	}
	if len(p.Metrics()) > 0 {
		return "", fmt.Errorf("reads metrics")
	}
	v, err := p.EvalMetric(s.env, nil, nil)
	if err != nil {
		return "", err
	}
	return literal(v)
}

// literal writes a value as Calc reads it: a number, null, or a list.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("not finite")
		}
		return numLit(x), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			p, err := literal(e)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("%T is not a number", v)
}

// numLit writes a float in the shortest form that reads back exactly;
// a negative number is parenthesised so that it can follow any operator.
func numLit(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if f < 0 {
		return "(" + s + ")"
	}
	return s
}
