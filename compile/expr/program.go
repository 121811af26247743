package expr

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/agentlab/agentlab/diag"
)

// Program is an expression compiled once (at compile time) and evaluated
// many times. It holds only the immutable parse tree, so Eval may run
// concurrently from any number of goroutines.
type Program struct {
	src     string
	ctx     Context
	s       *source
	refs    []Ref
	metrics []string
}

// CompileError carries every error Compile found, each with its code,
// offset and fix; Error() is the text shown to users.
type CompileError struct {
	Source string
	Issues []Issue
}

func (e *CompileError) Error() string {
	if len(e.Issues) == 0 {
		return "invalid expression"
	}
	i := e.Issues[0]
	msg := fmt.Sprintf("%s: %s (at byte %d of %q)", i.Code, i.Message, i.Offset, e.Source)
	if i.Fix != "" {
		msg += "; " + i.Fix
	}
	if n := len(e.Issues) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return msg
}

// Compile parses and checks src with the same parser and whitelist as
// Check, leaving out only the checks that need the surrounding flow (the
// Scope). Whatever Check accepts without errors compiles.
func Compile(src string, ctx Context) (*Program, error) {
	s := parseSource(src)
	var errs []Issue
	for _, i := range s.issues {
		if i.Severity == diag.Error {
			errs = append(errs, i)
		}
	}
	if s.tree == nil || len(errs) > 0 {
		return nil, &CompileError{Source: src, Issues: errs}
	}
	c := &checker{s: s, ctx: ctx}
	c.run()
	if len(c.issues) > 0 {
		return nil, &CompileError{Source: src, Issues: sortIssues(c.issues)}
	}
	p := &Program{src: src, ctx: ctx, s: s, refs: c.refs}
	for _, name := range sortedKeys(c.metrics) {
		p.metrics = append(p.metrics, name)
	}
	return p, nil
}

// Source returns the expression as written.
func (p *Program) Source() string { return p.src }

// Context returns the context the program was compiled for.
func (p *Program) Context() Context { return p.ctx }

// Refs returns the input, node, variable and loop references the
// expression makes, in source order, so callers can derive dependencies.
func (p *Program) Refs() []Ref { return append([]Ref(nil), p.refs...) }

// Metrics returns the other metrics a metric expression refers to by
// bare name, sorted.
func (p *Program) Metrics() []string { return append([]string(nil), p.metrics...) }

// RuntimeError is an evaluation failure. Offset and End locate the part
// of the expression that failed, as byte offsets into its source.
type RuntimeError struct {
	Offset  int
	End     int
	Message string
}

func (e *RuntimeError) Error() string { return e.Message }

// Eval evaluates the expression. env holds "input", "nodes", "vars" and,
// inside a loop body, "item" and "index"; values are JSON-like (nil, bool,
// numbers, strings, lists, maps with string keys). Metric names are not
// available here; use EvalMetric.
func (p *Program) Eval(env map[string]any) (any, error) {
	return p.run(&evaluator{p: p, env: env})
}

// EvalBool evaluates a condition. A result that is not a boolean is an
// error rather than being coerced, so a mistyped condition fails loudly.
func (p *Program) EvalBool(env map[string]any) (bool, error) {
	v, err := p.Eval(env)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		from, to := p.s.whole()
		return false, &RuntimeError{Offset: from, End: to,
			Message: fmt.Sprintf("the condition %s is %s, not true or false", strings.TrimSpace(p.s.text), typeName(v))}
	}
	return b, nil
}

// EvalList evaluates a loop's over. The items come back as []any
// whatever list type the value had; a result that is not a list is an
// error (nil is the empty list: nothing to iterate).
func (p *Program) EvalList(env map[string]any) ([]any, error) {
	v, err := p.Eval(env)
	if err != nil || v == nil {
		return []any{}, err
	}
	if isMap(v) {
		from, to := p.s.whole()
		return nil, &RuntimeError{Offset: from, End: to,
			Message: fmt.Sprintf("%s is a map, not a list; iterate keys(…) or values(…)", strings.TrimSpace(p.s.text))}
	}
	list, ok := asList(v)
	if !ok {
		from, to := p.s.whole()
		return nil, &RuntimeError{Offset: from, End: to,
			Message: fmt.Sprintf("%s is %s, not a list", strings.TrimSpace(p.s.text), typeName(v))}
	}
	return list, nil
}

// EvalMetric evaluates a metric expression. metrics holds the values of
// the other metrics it may name; trace (which may be nil) is called for
// every snapshot cell that col, cell and rows read, in reading order.
func (p *Program) EvalMetric(env map[string]any, metrics map[string]float64, trace func(Cell)) (float64, error) {
	v, err := p.run(&evaluator{p: p, env: env, metrics: metrics, trace: trace})
	if err != nil {
		return 0, err
	}
	n, ok := asNumber(v)
	from, to := p.s.whole()
	if !ok {
		return 0, &RuntimeError{Offset: from, End: to,
			Message: fmt.Sprintf("the metric %s is %s, not a number", strings.TrimSpace(p.s.text), typeName(v))}
	}
	f := n.float()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &RuntimeError{Offset: from, End: to, Message: "the metric is not a finite number"}
	}
	return f, nil
}

// run evaluates with a last-resort guard: a fault inside evaluation
// becomes an error, never a crash of the run.
func (p *Program) run(e *evaluator) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			from, to := p.s.whole()
			v, err = nil, &RuntimeError{Offset: from, End: to, Message: fmt.Sprintf("internal evaluation fault: %v", r)}
		}
	}()
	v, err = e.eval(p.s.tree)
	if errors.Is(err, errChainNil) {
		return nil, nil
	}
	return v, err
}
