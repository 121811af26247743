package ptc

import (
	"strconv"
	"strings"
)

// pyKeywords cannot be field names in TypedDict class syntax.
var pyKeywords = setOf("False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
	"in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield")

// pyReserved cannot be function names: the keywords plus the names the SDK
// itself imports or defines.
var pyReserved = union(pyKeywords, setOf("Any", "Literal", "NotRequired", "TypedDict", "ToolCallError", "annotations"))

func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

type pyRenderer struct {
	out   buffer
	funcs names
	types names
}

func newPy() *pyRenderer {
	r := &pyRenderer{}
	r.out.WriteString(contractPython)
	r.out.line()
	r.out.line("from __future__ import annotations")
	r.out.line()
	r.out.line("from typing import Any, Literal, NotRequired, TypedDict")
	r.out.line()
	r.out.line()
	r.out.line("class ToolCallError(Exception):")
	r.out.line(`    """Raised by a tool function when the call fails."""`)
	r.out.line()
	r.out.line("    tool: str")
	r.out.line(`    """The name of the tool that failed."""`)
	r.types.unique("ToolCallError")
	return r
}

func (r *pyRenderer) String() string { return r.out.String() }

func (r *pyRenderer) tool(t ToolInfo) {
	fn := r.funcs.unique(identifier(t.Name, pyReserved))
	base := camel(t.Name)
	argsName := r.types.unique(base + "Args")
	resName := r.types.unique(base + "Result")
	r.decl(argsName, fromArgs(t.Args))
	r.decl(resName, fromOutput(t.Output))
	doc := lines(t.Description)
	if fn != t.Name {
		doc = append(doc, `Tool name: "`+t.Name+`".`)
	}
	r.out.line()
	r.out.line()
	r.out.line("async def ", fn, "(args: ", argsName, ") -> ", resName, ":")
	if len(doc) > 0 {
		r.docstring("    ", doc)
	}
	r.out.line("    ...")
}

// decl writes a TypedDict for objects (nested objects first, as their own
// TypedDicts), a type alias for anything else.
func (r *pyRenderer) decl(name string, t *sdkType) {
	if t.kind != tObject {
		ref := r.typ(t, name+"Value")
		r.out.line()
		r.out.line()
		r.out.line(name, " = ", ref)
		return
	}
	// Render field types first: that emits the nested classes.
	types := make([]string, len(t.props))
	for i, p := range t.props {
		ft := r.typ(p.typ, name+camel(p.name))
		if !p.required {
			ft = "NotRequired[" + ft + "]"
		}
		types[i] = ft
	}
	r.out.line()
	r.out.line()
	classSyntax := true
	for _, p := range t.props {
		if !isIdent(p.name) || pyKeywords[p.name] {
			classSyntax = false
		}
	}
	if !classSyntax {
		r.out.line(name, ` = TypedDict("`, name, `", {`)
		for i, p := range t.props {
			for _, l := range lines(p.desc) {
				r.out.line("    # ", l)
			}
			r.out.line("    ", strconv.Quote(p.name), ": ", types[i], ",")
		}
		r.out.line("})")
		return
	}
	r.out.line("class ", name, "(TypedDict):")
	if len(t.props) == 0 {
		r.out.line("    pass")
		return
	}
	for i, p := range t.props {
		r.out.line("    ", p.name, ": ", types[i])
		if d := lines(p.desc); len(d) > 0 {
			r.docstring("    ", d)
		}
	}
}

// typ renders a type; nested objects become TypedDicts named hint.
func (r *pyRenderer) typ(t *sdkType, hint string) string {
	switch t.kind {
	case tString:
		return "str"
	case tInteger:
		return "int"
	case tNumber:
		return "float"
	case tBoolean:
		return "bool"
	case tNull:
		return "None"
	case tLiteral:
		if s, ok := pyLiteral(t.lit); ok {
			return "Literal[" + s + "]"
		}
		return "Any"
	case tArray:
		return "list[" + r.typ(t.elem, hint+"Item") + "]"
	case tMap:
		return "dict[str, " + r.typ(t.elem, hint+"Value") + "]"
	case tUnion:
		// Literal members are merged into one Literal[...] first.
		var lits []string
		var parts []string
		seen := map[string]bool{}
		for _, u := range t.union {
			if u.kind == tLiteral {
				s, ok := pyLiteral(u.lit)
				if !ok {
					return "Any"
				}
				if !seen["lit:"+s] {
					seen["lit:"+s] = true
					lits = append(lits, s)
				}
				continue
			}
			s := r.typ(u, hint)
			if !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
		if len(lits) > 0 {
			parts = append([]string{"Literal[" + strings.Join(lits, ", ") + "]"}, parts...)
		}
		return strings.Join(parts, " | ")
	case tObject:
		name := r.types.unique(hint)
		r.decl(name, t)
		return name
	}
	return "Any"
}

// pyLiteral renders a value allowed inside typing.Literal: strings, ints,
// booleans and None (floats are not allowed there).
func pyLiteral(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "None", true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case string:
		return jsonLit(x), true
	case float64:
		if isInt(x) {
			return strconv.FormatInt(int64(x), 10), true
		}
	}
	return "", false
}

// docstring writes a triple-quoted docstring; backslashes and quotes that
// would end it are escaped.
func (r *pyRenderer) docstring(indent string, doc []string) {
	for i := range doc {
		doc[i] = strings.ReplaceAll(strings.ReplaceAll(doc[i], `\`, `\\`), `"""`, `\"\"\"`)
	}
	last := doc[len(doc)-1]
	if strings.HasSuffix(last, `"`) {
		doc[len(doc)-1] = last[:len(last)-1] + `\"`
	}
	if len(doc) == 1 {
		r.out.line(indent, `"""`, doc[0], `"""`)
		return
	}
	r.out.line(indent, `"""`, doc[0])
	for _, l := range doc[1:] {
		if l == "" {
			r.out.line()
		} else {
			r.out.line(indent, l)
		}
	}
	r.out.line(indent, `"""`)
}
