package render

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The substituted formula of a metric (evidence.MetricValue.Substituted) is
// plain arithmetic over numbers: + - * / ( ), unary minus, list literals
// [a, b, …], the literal null (a NULL cell), and the functions sum, avg,
// min, max, count, round, abs. Calc evaluates it without any general
// expression engine, and assets/report.js holds a line-for-line twin for the
// browser; both must agree on every input (TestCalcMatchesJS).
//
// Aggregates take lists or several arguments, flatten them and skip null;
// count counts the non-null values; avg of nothing, and division by zero,
// are errors, as is any arithmetic on a list or on null.
// round(x) and round(x, d) round half away from zero, which is what the
// metrics engine promises and what JavaScript's Math.round does not.

// Calc limits: a formula longer than MaxFormulaBytes or nested deeper than
// MaxFormulaDepth is refused, so that a crafted bundle cannot exhaust the
// verifier.
const (
	MaxFormulaBytes = 1 << 20
	MaxFormulaDepth = 64
)

// calcValue is a number, a list or null.
type calcValue struct {
	num  float64
	list []calcValue
	kind byte // 'n' number, 'l' list, 'z' null
}

type calcParser struct {
	s     string
	pos   int
	depth int
}

// Calc evaluates a substituted formula to a number.
func Calc(s string) (float64, error) {
	if len(s) > MaxFormulaBytes {
		return 0, fmt.Errorf("formula is %d bytes, over the limit of %d", len(s), MaxFormulaBytes)
	}
	p := &calcParser{s: s}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	p.space()
	if p.pos < len(p.s) {
		return 0, fmt.Errorf("unexpected %q at offset %d", p.s[p.pos:p.pos+1], p.pos)
	}
	if v.kind != 'n' {
		return 0, errors.New("the formula is not a number")
	}
	if math.IsNaN(v.num) || math.IsInf(v.num, 0) {
		return 0, errors.New("the formula does not give a finite number")
	}
	return v.num, nil
}

func (p *calcParser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func (p *calcParser) peek() byte {
	p.space()
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *calcParser) enter() error {
	p.depth++
	if p.depth > MaxFormulaDepth {
		return fmt.Errorf("formula nested deeper than %d", MaxFormulaDepth)
	}
	return nil
}

func (p *calcParser) expr() (calcValue, error) {
	if err := p.enter(); err != nil {
		return calcValue{}, err
	}
	defer func() { p.depth-- }()
	a, err := p.term()
	if err != nil {
		return a, err
	}
	for {
		op := p.peek()
		if op != '+' && op != '-' {
			return a, nil
		}
		p.pos++
		b, err := p.term()
		if err != nil {
			return b, err
		}
		if a, err = arith(op, a, b); err != nil {
			return a, err
		}
	}
}

func (p *calcParser) term() (calcValue, error) {
	a, err := p.unary()
	if err != nil {
		return a, err
	}
	for {
		op := p.peek()
		if op != '*' && op != '/' {
			return a, nil
		}
		p.pos++
		b, err := p.unary()
		if err != nil {
			return b, err
		}
		if a, err = arith(op, a, b); err != nil {
			return a, err
		}
	}
}

func (p *calcParser) unary() (calcValue, error) {
	switch p.peek() {
	case '-', '+':
		op := p.s[p.pos]
		p.pos++
		if err := p.enter(); err != nil {
			return calcValue{}, err
		}
		v, err := p.unary()
		p.depth--
		if err != nil {
			return v, err
		}
		if v.kind != 'n' {
			return v, errors.New("unary minus on a list or null")
		}
		if op == '-' {
			v.num = -v.num
		}
		return v, nil
	}
	return p.primary()
}

func (p *calcParser) primary() (calcValue, error) {
	c := p.peek()
	switch {
	case c == '(':
		p.pos++
		v, err := p.expr()
		if err != nil {
			return v, err
		}
		if p.peek() != ')' {
			return v, fmt.Errorf("missing ) at offset %d", p.pos)
		}
		p.pos++
		return v, nil
	case c == '[':
		p.pos++
		if err := p.enter(); err != nil {
			return calcValue{}, err
		}
		defer func() { p.depth-- }()
		items, err := p.args(']')
		return calcValue{kind: 'l', list: items}, err
	case c >= '0' && c <= '9' || c == '.':
		return p.number()
	case c >= 'a' && c <= 'z':
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= 'a' && p.s[p.pos] <= 'z' {
			p.pos++
		}
		name := p.s[start:p.pos]
		if name == "null" {
			return calcValue{kind: 'z'}, nil
		}
		if p.peek() != '(' {
			return calcValue{}, fmt.Errorf("unknown name %q at offset %d", name, start)
		}
		p.pos++
		if err := p.enter(); err != nil {
			return calcValue{}, err
		}
		defer func() { p.depth-- }()
		args, err := p.args(')')
		if err != nil {
			return calcValue{}, err
		}
		return call(name, args)
	case c == 0:
		return calcValue{}, errors.New("the formula ends too early")
	}
	return calcValue{}, fmt.Errorf("unexpected %q at offset %d", string(c), p.pos)
}

// args reads comma-separated expressions up to the closing byte.
func (p *calcParser) args(end byte) ([]calcValue, error) {
	var out []calcValue
	if p.peek() == end {
		p.pos++
		return out, nil
	}
	for {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		switch p.peek() {
		case ',':
			p.pos++
		case end:
			p.pos++
			return out, nil
		default:
			return nil, fmt.Errorf("expected , or %c at offset %d", end, p.pos)
		}
	}
}

func (p *calcParser) number() (calcValue, error) {
	start := p.pos
	digits := func() {
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
	}
	digits()
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		digits()
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		digits()
	}
	f, err := strconv.ParseFloat(p.s[start:p.pos], 64)
	if err != nil || math.IsInf(f, 0) {
		return calcValue{}, fmt.Errorf("bad number %q at offset %d", p.s[start:p.pos], start)
	}
	return calcValue{kind: 'n', num: f}, nil
}

func arith(op byte, a, b calcValue) (calcValue, error) {
	if a.kind != 'n' || b.kind != 'n' {
		return calcValue{}, fmt.Errorf("%c applied to a list or null", op)
	}
	switch op {
	case '+':
		return calcValue{kind: 'n', num: a.num + b.num}, nil
	case '-':
		return calcValue{kind: 'n', num: a.num - b.num}, nil
	case '*':
		return calcValue{kind: 'n', num: a.num * b.num}, nil
	}
	if b.num == 0 {
		return calcValue{}, errors.New("division by zero")
	}
	return calcValue{kind: 'n', num: a.num / b.num}, nil
}

// flatten collects the numbers in args, depth first, skipping null.
func flatten(args []calcValue, out []float64) []float64 {
	for _, a := range args {
		switch a.kind {
		case 'n':
			out = append(out, a.num)
		case 'l':
			out = flatten(a.list, out)
		}
	}
	return out
}

func call(name string, args []calcValue) (calcValue, error) {
	num := func(f float64) (calcValue, error) { return calcValue{kind: 'n', num: f}, nil }
	switch name {
	case "sum", "avg", "min", "max", "count":
		xs := flatten(args, nil)
		switch name {
		case "count":
			return num(float64(len(xs)))
		case "sum":
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return num(s)
		}
		if len(xs) == 0 {
			return calcValue{}, fmt.Errorf("%s of no values", name)
		}
		r := xs[0]
		for _, x := range xs[1:] {
			switch name {
			case "avg":
				r += x
			case "min":
				if x < r {
					r = x
				}
			case "max":
				if x > r {
					r = x
				}
			}
		}
		if name == "avg" {
			r /= float64(len(xs))
		}
		return num(r)
	case "abs":
		if len(args) != 1 || args[0].kind != 'n' {
			return calcValue{}, errors.New("abs takes one number")
		}
		return num(math.Abs(args[0].num))
	case "round":
		if len(args) < 1 || len(args) > 2 || args[0].kind != 'n' || (len(args) == 2 && args[1].kind != 'n') {
			return calcValue{}, errors.New("round takes a number and optionally a number of decimals")
		}
		d := 0.0
		if len(args) == 2 {
			d = args[1].num
		}
		if d != math.Trunc(d) || d < 0 || d > 15 {
			return calcValue{}, errors.New("round: decimals must be a whole number from 0 to 15")
		}
		return num(RoundHalfAway(args[0].num, int(d)))
	}
	return calcValue{}, fmt.Errorf("unknown function %q (want sum, avg, min, max, count, round or abs)", name)
}

// RoundHalfAway rounds x to d decimals, halves away from zero, computed as
// sign(x)·floor(|x|·10^d + 0.5)/10^d so that JavaScript gets the same bits.
func RoundHalfAway(x float64, d int) float64 {
	p := math.Pow(10, float64(d))
	r := math.Floor(math.Abs(x)*p+0.5) / p
	if x < 0 {
		return -r
	}
	return r
}

// SameValue reports whether a recomputed value matches a recorded one: equal
// up to a relative 1e-9, which absorbs summation order differences and
// nothing a person could read in a report.
func SameValue(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
