package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
)

// call evaluates the arguments and applies a whitelisted function.
func (e *evaluator) call(name string, argNodes []ast.Node, at ast.Node) (any, error) {
	args := make([]any, len(argNodes))
	for i, a := range argNodes {
		v, err := e.eval(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return e.apply(name, at, args, argNodes)
}

// apply runs function name on evaluated args; nodes are the argument
// expressions, used for messages and to name snapshots.
func (e *evaluator) apply(name string, at ast.Node, args []any, nodes []ast.Node) (any, error) {
	spec, ok := funcs[name]
	if !ok || (spec.metric && e.p.ctx != Metric) {
		return nil, e.fail(at, "unknown function %s", quote(name))
	}
	if len(args) < spec.min || (spec.max >= 0 && len(args) > spec.max) {
		return nil, e.fail(at, "%s takes %s, got %d", name, arity(spec), len(args))
	}
	str := func(i int) (string, error) {
		s, ok := args[i].(string)
		if !ok {
			return "", e.fail(nodes[i], "%s needs text, but %s is %s", name, nodes[i].String(), typeName(args[i]))
		}
		return s, nil
	}
	switch name {
	case "len":
		switch x := args[0].(type) {
		case nil:
			return 0, nil
		case string:
			return runeLen(x), nil
		}
		if isMap(args[0]) {
			return len(mapKeys(args[0])), nil
		}
		if l, ok := asList(args[0]); ok {
			return len(l), nil
		}
		return nil, e.fail(nodes[0], "len needs text, a list or a map, but %s is %s", nodes[0].String(), typeName(args[0]))
	case "upper", "lower":
		s, err := str(0)
		if err != nil {
			return nil, err
		}
		if name == "upper" {
			return strings.ToUpper(s), nil
		}
		return strings.ToLower(s), nil
	case "trim":
		s, err := str(0)
		if err != nil {
			return nil, err
		}
		if len(args) == 1 {
			return strings.TrimSpace(s), nil
		}
		cut, err := str(1)
		if err != nil {
			return nil, err
		}
		return strings.Trim(s, cut), nil
	case "contains":
		if s, ok := args[0].(string); ok {
			part, err := str(1)
			if err != nil {
				return nil, err
			}
			return strings.Contains(s, part), nil
		}
		return e.in(&ast.BinaryNode{Operator: "in", Left: nodes[1], Right: nodes[0]}, args[1], args[0])
	case "startsWith", "endsWith":
		s, err := str(0)
		if err != nil {
			return nil, err
		}
		affix, err := str(1)
		if err != nil {
			return nil, err
		}
		if name == "startsWith" {
			return strings.HasPrefix(s, affix), nil
		}
		return strings.HasSuffix(s, affix), nil
	case "keys", "values":
		if !isMap(args[0]) {
			return nil, e.fail(nodes[0], "%s needs a map, but %s is %s", name, nodes[0].String(), typeName(args[0]))
		}
		ks := mapKeys(args[0])
		out := make([]any, len(ks))
		for i, k := range ks {
			if name == "keys" {
				out[i] = k
			} else {
				out[i], _, _ = mapGet(args[0], k)
			}
		}
		return out, nil
	case "int":
		return e.toInt(nodes[0], args[0])
	case "float":
		if n, ok := asNumber(args[0]); ok {
			return n.float(), nil
		}
		if s, ok := args[0].(string); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return f, nil
			}
		}
		return nil, e.fail(nodes[0], "float cannot convert %s (%s) to a number", nodes[0].String(), typeName(args[0]))
	case "string":
		s, err := Stringify(args[0])
		if err != nil {
			return nil, e.fail(nodes[0], "string: %v", err)
		}
		return s, nil
	case "abs":
		n, ok := asNumber(args[0])
		if !ok {
			return nil, e.fail(nodes[0], "abs needs a number, but %s is %s", nodes[0].String(), typeName(args[0]))
		}
		if n.isInt && n.i != math.MinInt {
			return max(n.i, -n.i), nil
		}
		return math.Abs(n.float()), nil
	case "round":
		return e.round(args, nodes)
	case "min", "max", "sum", "avg", "count":
		return e.aggregate(name, args, nodes)
	case "col", "cell", "rows":
		return e.snapshotFunc(name, args, nodes)
	}
	return nil, e.fail(at, "unknown function %s", quote(name))
}

// toInt converts a number (truncating toward zero) or numeric text.
func (e *evaluator) toInt(at ast.Node, v any) (any, error) {
	n, ok := asNumber(v)
	if s, isStr := v.(string); isStr {
		s = strings.TrimSpace(s)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return int(i), nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			n, ok = floatNum(f), true
		}
	}
	if !ok {
		return nil, e.fail(at, "int cannot convert %s (%s) to a number", at.String(), typeName(v))
	}
	if n.isInt {
		return n.i, nil
	}
	if math.IsNaN(n.f) || math.Abs(n.f) >= 1<<63 {
		return nil, e.fail(at, "int: %v does not fit in an integer", n.f)
	}
	return int(n.f), nil
}

// round rounds half away from zero at the given number of decimals. It
// rounds the shortest decimal form of the number (what people read and
// write), so round(2.675, 2) is 2.68 although 2.675 is stored as
// 2.67499999….
func (e *evaluator) round(args []any, nodes []ast.Node) (any, error) {
	n, ok := asNumber(args[0])
	if !ok {
		return nil, e.fail(nodes[0], "round needs a number, but %s is %s", nodes[0].String(), typeName(args[0]))
	}
	d := 0
	if len(args) == 2 {
		dn, ok := asNumber(args[1])
		if !ok || !dn.isInt || dn.i < 0 || dn.i > 15 {
			if ok && !dn.isInt && dn.f == math.Trunc(dn.f) && dn.f >= 0 && dn.f <= 15 {
				dn = intNum(int(dn.f))
			} else {
				return nil, e.fail(nodes[1], "round: decimals must be a whole number from 0 to 15")
			}
		}
		d = dn.i
	}
	if n.isInt {
		return n.i, nil
	}
	return roundHalfAway(n.f, d), nil
}

func roundHalfAway(x float64, d int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == math.Trunc(x) {
		return x
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'f', -1, 64))
	if !ok {
		return x
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)
	r.Mul(r, new(big.Rat).SetInt(scale))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	m.Abs(m).Lsh(m, 1)
	if m.Cmp(r.Denom()) >= 0 {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	f, _ := new(big.Rat).SetFrac(q, scale).Float64()
	return f
}

// aggregate implements min, max, sum, avg and count over a list (min and
// max also over their arguments). Nil items are skipped, as SQL skips
// NULL: count counts the non-nil items, avg divides by that count.
func (e *evaluator) aggregate(name string, args []any, nodes []ast.Node) (any, error) {
	items, at := args, nodes[0]
	if len(args) == 1 {
		l, ok := asList(args[0])
		if !ok {
			if name == "min" || name == "max" {
				if n, ok := asNumber(args[0]); ok {
					return n.value(), nil
				}
			}
			return nil, e.fail(at, "%s needs a list, but %s is %s", name, at.String(), typeName(args[0]))
		}
		items = l
	}
	nums := make([]number, 0, len(items))
	for i, it := range items {
		if it == nil {
			continue
		}
		if name == "count" {
			nums = append(nums, intNum(1))
			continue
		}
		n, ok := asNumber(it)
		if !ok {
			if len(args) > 1 {
				at = nodes[i]
			}
			return nil, e.fail(at, "%s: item %d is %s, not a number", name, i, typeName(it))
		}
		nums = append(nums, n)
	}
	switch name {
	case "count":
		return len(nums), nil
	case "sum", "avg":
		total, allInt := 0, true
		ftotal := 0.0
		for _, n := range nums {
			ftotal += n.float()
			if allInt && n.isInt {
				s := total + n.i
				if (total > 0 && n.i > 0 && s < 0) || (total < 0 && n.i < 0 && s >= 0) {
					allInt = false
				}
				total = s
			} else {
				allInt = false
			}
		}
		if name == "sum" {
			if allInt {
				return total, nil
			}
			return ftotal, nil
		}
		if len(nums) == 0 {
			return nil, e.fail(at, "avg of %s: there are no values to average", at.String())
		}
		return ftotal / float64(len(nums)), nil
	}
	if len(nums) == 0 {
		return nil, e.fail(at, "%s of %s: there are no values", name, at.String())
	}
	best := nums[0]
	for _, n := range nums[1:] {
		less := n.float() < best.float()
		if n.isInt && best.isInt {
			less = n.i < best.i
		}
		if (name == "min") == less && !equalNum(n, best) {
			best = n
		}
	}
	return best.value(), nil
}

func equalNum(a, b number) bool {
	if a.isInt && b.isInt {
		return a.i == b.i
	}
	return a.float() == b.float()
}
