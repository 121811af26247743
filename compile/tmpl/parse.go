package tmpl

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/diag"
)

// Ref is one reference a template makes, e.g. nodes.pull.rows[0].gmv is
// Ref{Root: "nodes", Path: ["pull", "rows", "0", "gmv"]}. It is the same
// type as expr.Ref so that callers derive dependencies from templates
// and expressions alike.
type Ref = expr.Ref

// Template is a parsed template: literal text and `{{ … }}` tags. It is
// immutable, so Render may run concurrently.
type Template struct {
	src   string
	parts []part
}

// part is either literal text or one tag.
type part struct {
	text string
	tag  *tag
}

// tag is one `{{ value | filter | filter(arg) }}`.
type tag struct {
	off, end int // the whole tag, braces included
	literal  any // the value when the tag holds a quoted string
	isLit    bool
	path     []expr.PathSeg // root first
	pathEnd  int            // byte offset after the path (its last ] included)
	filters  []filter
}

// filter is one `| name` or `| name(args)`.
type filter struct {
	name     string
	args     []any
	off, end int
}

// pathText renders the path as written, for messages.
func (t *tag) pathText(upto int) string {
	var b strings.Builder
	for i, s := range t.path[:upto] {
		switch {
		case i == 0:
			b.WriteString(s.Name)
		case s.Index:
			b.WriteString("[" + s.Name + "]")
		default:
			b.WriteString("." + s.Name)
		}
	}
	return b.String()
}

// Parse parses src. Every problem is reported, each at its byte offset;
// when any of them is an error the returned Template is nil.
func Parse(src string) (*Template, []expr.Issue) {
	p := &parser{src: src}
	p.parse()
	for _, is := range p.issues {
		if is.Severity == diag.Error {
			return nil, p.issues
		}
	}
	return &Template{src: src, parts: p.parts}, p.issues
}

type parser struct {
	src    string
	parts  []part
	issues []expr.Issue
	toks   []token
	pos    int
	tagEnd int
}

func (p *parser) errorf(off, end int, code, fix, format string, args ...any) {
	p.issues = append(p.issues, expr.Issue{Offset: off, End: max(off, end), Severity: diag.Error, Code: code,
		Message: fmt.Sprintf(format, args...), Fix: fix})
}

func (p *parser) parse() {
	i := 0
	for i < len(p.src) {
		open := strings.Index(p.src[i:], "{{")
		if open < 0 {
			p.parts = append(p.parts, part{text: p.src[i:]})
			return
		}
		open += i
		if open > i {
			p.parts = append(p.parts, part{text: p.src[i:open]})
		}
		close, quote := findClose(p.src, open+2)
		if quote >= 0 {
			p.errorf(quote, quote+1, CodeUnterminated, "close the string with the quote it starts with",
				"unterminated string in {{ … }}")
		}
		if close < 0 {
			if quote < 0 {
				p.errorf(open, len(p.src), CodeUnterminated,
					"close it with }}; to write {{ as text use {{ '{{' }}", "{{ is never closed")
			}
			return
		}
		if quote < 0 {
			p.tag(open, close)
		}
		i = close + 2
	}
}

// tag parses the tag src[open:close+2].
func (p *parser) tag(open, close int) {
	t := &tag{off: open, end: close + 2}
	p.toks, p.pos, p.tagEnd = lexTag(p.src, open+2, close), 0, close
	if len(p.toks) == 0 {
		p.errorf(open, close+2, CodeEmpty, "put a name inside, for example {{ input.week }}, or remove the braces",
			"empty {{ }}")
		return
	}
	first := p.next()
	switch first.kind {
	case 's':
		t.literal, t.isLit = first.val, true
	case 'i':
		if !p.path(t, first) {
			return
		}
	default:
		p.errorf(first.off, first.end, CodeSyntax, "start with a name such as input.week, nodes.<id>.text or vars.<name>",
			"expected a name in {{ }}, found %q", first.text)
		return
	}
	for p.peek().kind == '|' {
		p.next()
		if !p.filter(t) {
			return
		}
	}
	if tk := p.peek(); tk.kind != 0 {
		p.unexpected(t, tk)
		return
	}
	p.parts = append(p.parts, part{tag: t})
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{off: p.tagEnd, end: p.tagEnd}
}

func (p *parser) next() token {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

// path reads root(.name | [n] | ['key'])*.
func (p *parser) path(t *tag, root token) bool {
	t.path = []expr.PathSeg{{Name: root.text, Static: true, Offset: root.off, End: root.end}}
	t.pathEnd = root.end
	for {
		switch p.peek().kind {
		case '.':
			dot := p.next()
			name := p.next()
			if name.kind != 'i' {
				p.errorf(dot.off, name.end, CodeSyntax, "write a field name after the dot, or an index as [0]",
					"expected a field name after %q", t.pathText(len(t.path))+".")
				return false
			}
			t.path = append(t.path, expr.PathSeg{Name: name.text, Static: true, Offset: name.off, End: name.end})
			t.pathEnd = name.end
		case '[':
			open := p.next()
			key := p.next()
			closeTok := p.next()
			ok := closeTok.kind == ']'
			var seg expr.PathSeg
			switch v := key.val.(type) {
			case int:
				seg = expr.PathSeg{Name: fmt.Sprint(v), Index: true, Static: true, Offset: key.off, End: key.end}
			case string:
				// The name without its quotes, so the span is the name itself.
				seg = expr.PathSeg{Name: v, Static: true, Offset: key.off + 1, End: key.end - 1}
			default:
				ok = false
			}
			if !ok {
				p.errorf(open.off, closeTok.end, CodeSyntax, "index with a whole number or a quoted key: rows[0], m['key']",
					"invalid index after %q", t.pathText(len(t.path)))
				return false
			}
			t.path = append(t.path, seg)
			t.pathEnd = closeTok.end
		default:
			return true
		}
	}
}

// filter reads name or name(args…) after a pipe.
func (p *parser) filter(t *tag) bool {
	name := p.next()
	if name.kind != 'i' {
		p.errorf(name.off, name.end, CodeSyntax, "write a filter name after |, for example | json",
			"expected a filter name after |")
		return false
	}
	f := filter{name: name.text, off: name.off, end: name.end}
	if p.peek().kind == '(' {
		p.next()
		for p.peek().kind != ')' {
			if len(f.args) > 0 {
				if c := p.next(); c.kind != ',' {
					p.errorf(c.off, c.end, CodeSyntax, "separate filter arguments with commas and close with )",
						"expected , or ) in the arguments of %s", name.text)
					return false
				}
			}
			a := p.next()
			v, ok := literal(a)
			if !ok {
				p.errorf(a.off, a.end, CodeFilterArgs, "filter arguments are literals: 'text', 42, true or nil",
					"the argument of %s must be a literal, found %q", name.text, a.text)
				return false
			}
			f.args = append(f.args, v)
		}
		f.end = p.next().end
	} else if c := p.peek(); c.kind == 'x' && strings.HasPrefix(c.text, ":") {
		p.errorf(c.off, c.end, CodeSyntax, fmt.Sprintf("put arguments in parentheses: %s(…)", name.text),
			"filter arguments go in parentheses, not after a colon")
		return false
	}
	spec, known := filters[f.name]
	switch {
	case !known:
		fix := "available filters: " + strings.Join(Filters(), ", ")
		if s := expr.Suggest(f.name, Filters()); s != "" {
			fix = "did you mean \"" + s + "\"?"
		} else if a, ok := filterAliases[f.name]; ok {
			fix = "did you mean \"" + a + "\"?"
		}
		p.errorf(f.off, f.end, CodeFilter, fix, "unknown filter %q", f.name)
	case len(f.args) < spec.min || len(f.args) > spec.max:
		p.errorf(f.off, f.end, CodeFilterArgs, "write it as "+spec.usage, "%s takes %s, got %d", f.name, spec.arity(), len(f.args))
	case f.name == "join" && len(f.args) == 1:
		if _, ok := f.args[0].(string); !ok {
			p.errorf(f.off, f.end, CodeFilterArgs, "write it as "+spec.usage, "the separator of join must be quoted text")
		}
	}
	t.filters = append(t.filters, f)
	return true
}

// literal is the value of a literal token.
func literal(t token) (any, bool) {
	switch t.kind {
	case 's', 'n':
		return t.val, true
	case 'i':
		switch t.text {
		case "true":
			return true, true
		case "false":
			return false, true
		case "nil", "null":
			return nil, true
		}
	}
	return nil, false
}

// unexpected explains what follows a complete value: usually an attempt
// to write an expression inside a template.
func (p *parser) unexpected(t *tag, tk token) {
	fix := "templates hold a path and filters; compute other values in a transform node and insert vars.<name>"
	msg := fmt.Sprintf("unexpected %q in {{ }}", tk.text)
	if tk.kind == '(' && len(t.path) == 1 && len(t.filters) == 0 {
		name := t.path[0].Name
		msg = fmt.Sprintf("functions are not called in templates (%s(…))", name)
		if f, ok := filterAliases[name]; ok {
			name = f
		}
		if _, ok := filters[name]; ok {
			fix = fmt.Sprintf("use the filter: {{ value | %s }}", name)
		}
	} else if tk.kind == 'x' {
		msg = fmt.Sprintf("operators such as %q are not allowed in templates", tk.text)
	}
	p.errorf(tk.off, tk.end, CodeSyntax, fix, "%s", msg)
}

// Refs returns the references the template makes, in order.
func (t *Template) Refs() []Ref {
	var out []Ref
	for _, pt := range t.parts {
		if pt.tag == nil || pt.tag.isLit {
			continue
		}
		segs := pt.tag.path
		r := Ref{Root: segs[0].Name, Offset: segs[0].Offset, End: pt.tag.pathEnd}
		for _, s := range segs[1:] {
			r.Path = append(r.Path, s.Name)
		}
		out = append(out, r)
	}
	return out
}

// IsLiteral reports whether the template has no tags, so rendering it
// returns it unchanged.
func (t *Template) IsLiteral() bool {
	for _, pt := range t.parts {
		if pt.tag != nil {
			return false
		}
	}
	return true
}

// Source returns the template as written.
func (t *Template) Source() string { return t.src }

// Check parses src and checks every reference against the names in sc,
// with the same rules as expressions.
func Check(src string, sc expr.Scope) []expr.Issue {
	p := &parser{src: src}
	p.parse()
	issues := p.issues
	for _, pt := range p.parts {
		if pt.tag != nil && !pt.tag.isLit {
			issues = append(issues, expr.CheckPath("TMPL", pt.tag.path, sc)...)
		}
	}
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].Offset < issues[j].Offset })
	return issues
}
