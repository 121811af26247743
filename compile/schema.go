package compile

import (
	"sort"

	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// kind is the type of a field's value in the language schema.
type kind uint8

const (
	kStr      kind = iota // any scalar, kept as its text
	kInt                  // integer
	kNum                  // number (integer or float)
	kBool                 // true/false
	kEnum                 // one of field.enum
	kExpr                 // an expression (compile/expr), context field.ctx
	kTmpl                 // a template string (compile/tmpl)
	kStrList              // list of strings
	kTmplList             // a template string or a list of them; the plan holds a list
	kAny                  // any JSON value (JSON Schema, forms)
	kTmplAny              // any JSON value whose strings are templates (tool args)
	kObj                  // mapping described by field.sub
	kObjList              // list of mappings described by field.sub
	kMapOf                // mapping of name → field.elem
	kNodeRef              // id of another node
	kNodeRefs             // list of node ids
	kVar                  // variable name (assign_to, collect)
	kBody                 // a loop body: {nodes, edges}
)

// field describes one key of a mapping: its type, whether it is required,
// its default and constraints. The tables in nodes.go are the single
// source of truth for the language; docs/language.md mirrors them.
type field struct {
	name    string
	kind    kind
	req     bool
	def     any
	enum    []string
	enumAny []any // enum's values as interfaces, shared by every decoded value
	ctx     expr.Context
	sub     *schema
	elem    *field
	pattern *lazyre.Regexp
	patDesc string // what the pattern means, for messages
	min     *float64
	max     *float64
}

// schema is the set of keys a mapping may have.
type schema struct {
	what   string // "node of type llm", "source", … for messages
	fields []*field
	byName map[string]*field
	names  []string // sorted, for messages and suggestions
	// allowX accepts and ignores keys starting with "x-": a place to
	// define YAML anchors that other parts of the file alias.
	allowX bool
}

func newSchema(what string, fields ...*field) *schema {
	s := &schema{what: what, fields: fields, byName: map[string]*field{}}
	for _, f := range fields {
		s.byName[f.name] = f
		s.names = append(s.names, f.name)
		if len(f.enum) > 0 && f.enumAny == nil {
			f.enumAny = make([]any, len(f.enum))
			for i, e := range f.enum {
				f.enumAny[i] = e
			}
		}
	}
	sort.Strings(s.names)
	return s
}

// extend returns a schema with the fields of s followed by more.
func (s *schema) extend(what string, more ...*field) *schema {
	all := append(append([]*field(nil), s.fields...), more...)
	return newSchema(what, all...)
}

// Field constructors keep the tables short.

func fStr(name string) *field  { return &field{name: name, kind: kStr} }
func fInt(name string) *field  { return &field{name: name, kind: kInt} }
func fNum(name string) *field  { return &field{name: name, kind: kNum} }
func fBool(name string) *field { return &field{name: name, kind: kBool} }
func fAny(name string) *field  { return &field{name: name, kind: kAny} }
func fTmpl(name string) *field { return &field{name: name, kind: kTmpl} }
func fStrs(name string) *field { return &field{name: name, kind: kStrList} }
func fRef(name string) *field  { return &field{name: name, kind: kNodeRef} }
func fRefs(name string) *field { return &field{name: name, kind: kNodeRefs} }

// fTmpls is a field of names that may each be a template (human assignees).
func fTmpls(name string) *field { return &field{name: name, kind: kTmplList} }
func fVar(name string) *field {
	return &field{name: name, kind: kVar, pattern: identRe, patDesc: "a name of lowercase letters, digits and _"}
}
func fEnum(name string, v ...string) *field { return &field{name: name, kind: kEnum, enum: v} }
func fExpr(name string, c expr.Context) *field {
	return &field{name: name, kind: kExpr, ctx: c}
}
func fObj(name string, s *schema) *field     { return &field{name: name, kind: kObj, sub: s} }
func fObjList(name string, s *schema) *field { return &field{name: name, kind: kObjList, sub: s} }
func fMapOf(name string, elem *field) *field { return &field{name: name, kind: kMapOf, elem: elem} }

func (f *field) required() *field         { f.req = true; return f }
func (f *field) dflt(v any) *field        { f.def = v; return f }
func (f *field) atLeast(n float64) *field { f.min = &n; return f }
func (f *field) atMost(n float64) *field  { f.max = &n; return f }
func (f *field) match(re *lazyre.Regexp, desc string) *field {
	f.pattern, f.patDesc = re, desc
	return f
}

// matches reports whether s matches re. The two patterns every node id
// and edge is checked against are tested byte by byte (exactly what the
// expressions say; TestIDPatternsAgree holds them to it), at a fraction
// of a regular expression's cost.
func matches(re *lazyre.Regexp, s string) bool {
	switch re {
	case idRe:
		return isID(s)
	case identRe:
		return isIdent(s)
	}
	return re.MatchString(s)
}

// isID reports whether s matches idRe: ^[a-z][a-z0-9_]*$.
func isID(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// isIdent reports whether s matches identRe: ^[A-Za-z_][A-Za-z0-9_]*$.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

var (
	idRe     = lazyre.New(`^[a-z][a-z0-9_]*$`)
	identRe  = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
	slugRe   = lazyre.New(`^[a-z0-9][a-z0-9._-]*$`)
	pinRe    = lazyre.New(`^b3:[0-9a-f]{64}$`)
	cardRe   = lazyre.New(`^([a-z0-9][a-z0-9._-]*)(?:@([0-9]+))?$`)
	quorumRe = lazyre.New(`^(any|all|quorum:[1-9][0-9]*)$`)
)
