// Package form is the form of a human node: the fields a person fills in
// when deciding it (`form:` in the flow, docs/language.md), and the checking and
// typing of the values submitted with a decision.
//
// Lint, the run engine and `agentlab approve` share this package, so that
// a value the command line accepts is exactly one the engine accepts when
// the run resumes, and the engine never has to trust a recorded value.
//
// In the plan a form is a mapping of field name to its declaration:
//
//	{"ticket": {"type": "string", "required": true, "description": "…"},
//	 "risk":   {"type": "string", "enum": ["low", "high"]}}
//
// The compiler writes every declaration in this full shape (the flow may
// use the shorthand `ticket: string`).
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package form

import (
	"fmt"
	"math"
	"sort"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// Field types.
const (
	String  = "string"
	Number  = "number"
	Integer = "integer"
	Boolean = "boolean"
)

// Types are the types a form field may have, in the order messages list them.
var Types = []string{String, Number, Integer, Boolean}

// NameRe is the form of a field name: it is written after `--field` on a
// command line and after `nodes.<id>.form.` in templates and expressions,
// so it is an identifier.
var NameRe = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// MaxInteger bounds integer fields: every integer up to 2^53 survives the
// JSON round trip of the event log exactly.
const MaxInteger = 1 << 53

// Field is one declared field.
type Field struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
	Description string `json:"description,omitempty"`
}

// Form is a node's fields, sorted by name (the plan's canonical JSON keeps
// no other order). A nil Form is a node without a form.
type Form []Field

// ValidType reports whether t is one of Types.
func ValidType(t string) bool {
	for _, x := range Types {
		if x == t {
			return true
		}
	}
	return false
}

// FromSpec reads a form from a plan node's Spec["form"] (nil or absent: no
// form). Plans are written by the compiler, which has checked the form;
// a plan edited by hand gets an error rather than a form that approves
// what it should not.
func FromSpec(x any) (Form, error) {
	if x == nil {
		return nil, nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("form must be a mapping of field name to declaration, found %T", x)
	}
	out := make(Form, 0, len(m))
	for name, d := range m {
		if !NameRe.MatchString(name) {
			return nil, fmt.Errorf("form field %q: a name is letters, digits and _, starting with a letter or _", name)
		}
		f := Field{Name: name}
		switch d := d.(type) {
		case string: // the shorthand, in a plan written by hand
			f.Type = d
		case map[string]any:
			f.Type, _ = d["type"].(string)
			if r, ok := d["required"]; ok {
				if f.Required, ok = r.(bool); !ok {
					return nil, fmt.Errorf("form field %q: required must be true or false", name)
				}
			}
			f.Description, _ = d["description"].(string)
			if e, ok := d["enum"]; ok && e != nil {
				l, ok := e.([]any)
				if !ok {
					return nil, fmt.Errorf("form field %q: enum must be a list", name)
				}
				f.Enum = l
			}
		default:
			return nil, fmt.Errorf("form field %q must be a type name or a mapping, found %T", name, d)
		}
		if f.Type == "" {
			f.Type = String
		}
		if !ValidType(f.Type) {
			return nil, fmt.Errorf("form field %q has type %q; a form field is string, number, integer or boolean", name, f.Type)
		}
		if _, msg := CheckEnum(f.Type, f.Enum); msg != "" {
			return nil, fmt.Errorf("form field %q: %s", name, msg)
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CheckEnum says what is wrong with an enum for a field of type t (""
// when nothing is) and which entry is wrong (-1: the enum as a whole): it
// lists at least one value, each of the field's type and none twice; a
// boolean field takes no enum (it has two values already).
func CheckEnum(t string, enum []any) (int, string) {
	if enum == nil {
		return -1, ""
	}
	if t == Boolean {
		return -1, "a boolean field takes no enum; use a string field with an enum for more than two answers"
	}
	if len(enum) == 0 {
		return -1, "enum is empty; list the allowed values, or remove enum"
	}
	seen := map[string]bool{}
	for i, e := range enum {
		if !ofType(t, e) {
			return i, fmt.Sprintf("enum value %s is not %s, the type of the field", show(e), TypeWord(t))
		}
		k := fmt.Sprintf("%T:%v", e, e)
		if x, ok := toFloat(e); ok {
			k = fmt.Sprint("n:", x)
		}
		if seen[k] {
			return i, fmt.Sprintf("enum value %s is listed twice", show(e))
		}
		seen[k] = true
	}
	return -1, ""
}

// ofType reports whether v, a JSON value, is a value of type t.
func ofType(t string, v any) bool {
	switch t {
	case String:
		_, ok := v.(string)
		return ok
	case Number:
		_, ok := toFloat(v)
		return ok
	case Integer:
		x, ok := toFloat(v)
		return ok && x == math.Trunc(x) && math.Abs(x) <= MaxInteger
	case Boolean:
		_, ok := v.(bool)
		return ok
	}
	return false
}

// toFloat reads a JSON or YAML-decoded number.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsInf(n, 0) && !math.IsNaN(n)
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// TypeWord names a type in a sentence: "a string", "an integer".
func TypeWord(t string) string {
	if t == Integer {
		return "an integer"
	}
	return "a " + t
}

// show writes a value as a person would type it.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case float64:
		return fmtNum(x)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// Get returns the field named name.
func (f Form) Get(name string) (Field, bool) {
	for _, x := range f {
		if x.Name == name {
			return x, true
		}
	}
	return Field{}, false
}

// Names returns the field names, in order.
func (f Form) Names() []string {
	out := make([]string, len(f))
	for i, x := range f {
		out[i] = x.Name
	}
	return out
}

// Required returns the required fields, in order.
func (f Form) Required() []Field {
	var out []Field
	for _, x := range f {
		if x.Required {
			out = append(out, x)
		}
	}
	return out
}

// Hint describes what a field takes, for prompts and messages:
// "string, required", "string: low|high", "number".
func (fd Field) Hint() string {
	s := fd.Type
	if len(fd.Enum) > 0 {
		s += ": "
		for i, e := range fd.Enum {
			if i > 0 {
				s += "|"
			}
			if str, ok := e.(string); ok {
				s += str
			} else {
				s += show(e)
			}
		}
	}
	if fd.Required {
		s += ", required"
	}
	return s
}
