package ptc

import "strings"

var tsReserved = setOf("break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
	"do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in",
	"instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var",
	"void", "while", "with", "as", "implements", "interface", "let", "package", "private", "protected",
	"public", "static", "yield", "await", "async", "ToolCallError")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

type tsRenderer struct {
	out   buffer
	funcs names
	types names
}

func newTS() *tsRenderer {
	r := &tsRenderer{}
	r.out.WriteString(contractTypeScript)
	r.out.line()
	r.out.line("/** Thrown by a tool function when the call fails. */")
	r.out.line("export declare class ToolCallError extends Error {")
	r.out.line("  /** The name of the tool that failed. */")
	r.out.line("  readonly tool: string;")
	r.out.line("}")
	r.types.unique("ToolCallError")
	return r
}

func (r *tsRenderer) String() string { return r.out.String() }

func (r *tsRenderer) tool(t ToolInfo) {
	fn := r.funcs.unique(identifier(t.Name, tsReserved))
	base := camel(t.Name)
	argsName := r.types.unique(base + "Args")
	resName := r.types.unique(base + "Result")
	r.out.line()
	r.decl(argsName, fromArgs(t.Args))
	r.out.line()
	r.decl(resName, fromOutput(t.Output))
	r.out.line()
	doc := lines(t.Description)
	if fn != t.Name {
		doc = append(doc, `Tool name: "`+t.Name+`".`)
	}
	r.comment("", doc)
	r.out.line("export declare function ", fn, "(args: ", argsName, "): Promise<", resName, ">;")
}

// fromArgs: a tool without an argument schema takes an empty object.
func fromArgs(s map[string]any) *sdkType {
	if s == nil {
		return &sdkType{kind: tObject}
	}
	return fromSchema(s, 0)
}

// fromOutput: a tool without an output schema returns the unknown type.
func fromOutput(s map[string]any) *sdkType {
	if s == nil {
		return anyType
	}
	return fromSchema(s, 0)
}

// decl writes an interface for objects, a type alias for anything else.
func (r *tsRenderer) decl(name string, t *sdkType) {
	if t.kind != tObject {
		r.out.line("export type ", name, " = ", r.typ(t, ""), ";")
		return
	}
	if len(t.props) == 0 {
		r.out.line("export interface ", name, " {}")
		return
	}
	r.out.line("export interface ", name, " {")
	r.fields(t, "  ")
	r.out.line("}")
}

func (r *tsRenderer) fields(t *sdkType, indent string) {
	for _, p := range t.props {
		r.comment(indent, lines(p.desc))
		opt := "?"
		if p.required {
			opt = ""
		}
		r.out.line(indent, tsKey(p.name), opt, ": ", r.typ(p.typ, indent), ";")
	}
}

func tsKey(k string) string {
	if isIdent(k) {
		return k
	}
	return jsonLit(k)
}

// typ renders a type inline; nested objects are written as multi-line
// object types indented under indent.
func (r *tsRenderer) typ(t *sdkType, indent string) string {
	switch t.kind {
	case tString:
		return "string"
	case tInteger, tNumber:
		return "number"
	case tBoolean:
		return "boolean"
	case tNull:
		return "null"
	case tLiteral:
		return jsonLit(t.lit)
	case tArray:
		e := r.typ(t.elem, indent)
		if t.elem.kind == tUnion {
			e = "(" + e + ")"
		}
		return e + "[]"
	case tMap:
		return "Record<string, " + r.typ(t.elem, indent) + ">"
	case tUnion:
		seen := map[string]bool{}
		var parts []string
		for _, u := range t.union {
			s := r.typ(u, indent)
			if !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " | ")
	case tObject:
		if len(t.props) == 0 {
			return "{}"
		}
		sub := &tsRenderer{funcs: r.funcs, types: r.types}
		sub.fields(t, indent+"  ")
		return "{\n" + sub.out.String() + indent + "}"
	}
	return "unknown"
}

// comment writes a JSDoc block; "*/" inside the text is defused.
func (r *tsRenderer) comment(indent string, doc []string) {
	if len(doc) == 0 {
		return
	}
	for i := range doc {
		doc[i] = strings.ReplaceAll(doc[i], "*/", `*\/`)
	}
	if len(doc) == 1 {
		r.out.line(indent, "/** ", doc[0], " */")
		return
	}
	r.out.line(indent, "/**")
	for _, l := range doc {
		if l == "" {
			r.out.line(indent, " *")
		} else {
			r.out.line(indent, " * ", l)
		}
	}
	r.out.line(indent, " */")
}
