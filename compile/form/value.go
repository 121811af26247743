package form

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/diag"
)

// MaxText bounds one submitted value: a form holds short answers (a
// ticket, a reason), not documents, and every value goes into the event
// log and the sealed bundle.
const MaxText = 64 << 10

// Placeholder stands for a value in the approve command a waiting run
// suggests (`--field ticket=…`). A value that is still the placeholder is
// refused, so that a command pasted without filling it in records nothing.
const Placeholder = "…"

// Problem is one reason a submission is refused: the field and a sentence
// that says what is wrong and how to fix it.
type Problem struct {
	Field    string
	Sentence string
}

// Error is a refused submission; it lists every problem, not only the
// first, so that one correction fixes them all.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	s := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s[i] = p.Sentence
	}
	return strings.Join(s, "; ")
}

// Value types one submitted value for the field. A string (from
// `--field NAME=VALUE` or a prompt) is read as text of the field's type;
// any other value (from a JSON file) must already have the type. The
// result is what the event log holds: a string, a float64 or a bool.
func (fd Field) Value(v any) (any, error) {
	bad := func(got string) error {
		return fmt.Errorf("form field %q must be %s, got %s; give e.g. --field %s=%s",
			fd.Name, TypeWord(fd.Type), got, fd.Name, example(fd))
	}
	s, isStr := v.(string)
	if isStr && (len(s) > MaxText || !utf8.ValidString(s)) {
		return nil, fmt.Errorf("form field %q must be UTF-8 text of at most %d bytes; shorten it, or link to a document instead", fd.Name, MaxText)
	}
	if isStr && strings.TrimSpace(s) == Placeholder {
		return nil, fmt.Errorf("form field %q still holds the placeholder %s; replace it with the value: --field %s=%s",
			fd.Name, Placeholder, fd.Name, example(fd))
	}
	switch fd.Type {
	case String:
		if !isStr {
			return nil, bad(show(v))
		}
	case Number, Integer:
		if isStr {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) || strings.ContainsAny(s, "xXpP_") {
				return nil, bad(strconv.Quote(s))
			}
			v = x
		}
		x, ok := toFloat(v)
		if !ok {
			return nil, bad(show(v))
		}
		if fd.Type == Integer && (x != math.Trunc(x) || math.Abs(x) > MaxInteger) {
			return nil, bad(show(v) + ", which is not a whole number of at most 2^53")
		}
		v = x
	case Boolean:
		if isStr {
			b, ok := parseBool(s)
			if !ok {
				return nil, bad(strconv.Quote(s))
			}
			v = b
		}
		if _, ok := v.(bool); !ok {
			return nil, bad(show(v))
		}
	default:
		return nil, fmt.Errorf("form field %q has type %q, which a form does not have", fd.Name, fd.Type)
	}
	if len(fd.Enum) > 0 {
		for _, e := range fd.Enum {
			if same(e, v) {
				return v, nil
			}
		}
		allowed := make([]string, len(fd.Enum))
		for i, e := range fd.Enum {
			allowed[i] = fmt.Sprint(e)
			if x, ok := toFloat(e); ok {
				allowed[i] = fmtNum(x)
			}
		}
		hint := ""
		if isStr {
			hint = diag.DidYouMean(s, allowed)
			if hint != "" {
				hint += " "
			}
		}
		return nil, fmt.Errorf("form field %q must be one of %s, got %s; %sgive --field %s=%s",
			fd.Name, strings.Join(allowed, ", "), show(v), hint, fd.Name, allowed[0])
	}
	return v, nil
}

// parseBool reads a boolean as strconv.ParseBool does, plus yes and no.
func parseBool(s string) (bool, bool) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "yes":
		return true, true
	case "no":
		return false, true
	}
	b, err := strconv.ParseBool(s)
	return b, err == nil
}

// same compares a declared enum value with a typed submitted value.
func same(e, v any) bool {
	if a, ok := toFloat(e); ok {
		b, ok := toFloat(v)
		return ok && a == b
	}
	return e == v
}

// example is a value of the field's type for a fix sentence.
func example(fd Field) string {
	if len(fd.Enum) > 0 {
		if x, ok := toFloat(fd.Enum[0]); ok {
			return fmtNum(x)
		}
		return fmt.Sprint(fd.Enum[0])
	}
	switch fd.Type {
	case Number:
		return "12.5"
	case Integer:
		return "3"
	case Boolean:
		return "true"
	}
	return "TEXT"
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Check checks the values submitted with one decision and returns them
// typed. An approval must fill every required field (a required string
// with text that is not blank); a rejection need not fill any — a person
// can always reject — but whatever a decision submits must be a field of
// the form, of its type. A nil value counts as not submitted.
func (f Form) Check(values map[string]any, approving bool) (map[string]any, error) {
	var probs []Problem
	out := map[string]any{}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if values[k] == nil {
			continue
		}
		fd, ok := f.Get(k)
		if !ok {
			probs = append(probs, Problem{k, unknown(f, k)})
			continue
		}
		v, err := fd.Value(values[k])
		if err != nil {
			probs = append(probs, Problem{k, err.Error()})
			continue
		}
		out[k] = v
	}
	if approving {
		for _, fd := range f.Required() {
			v, given := out[fd.Name]
			if values[fd.Name] != nil && !given {
				continue // already reported as the wrong type
			}
			s, isStr := v.(string)
			switch {
			case !given:
				probs = append(probs, Problem{fd.Name, fmt.Sprintf("form field %q is required to approve (%s); add --field %s=%s",
					fd.Name, describe(fd), fd.Name, example(fd))})
			case isStr && strings.TrimSpace(s) == "":
				probs = append(probs, Problem{fd.Name, fmt.Sprintf("form field %q is required to approve and is blank; give it text with --field %s=%s",
					fd.Name, fd.Name, example(fd))})
			}
		}
	}
	if len(probs) > 0 {
		return nil, &Error{Problems: probs}
	}
	return out, nil
}

// describe is a field's type and description for a message.
func describe(fd Field) string {
	s := TypeWord(fd.Type)
	if fd.Description != "" {
		s += ": " + fd.Description
	}
	return s
}

// unknown explains a submitted name the form does not have.
func unknown(f Form, name string) string {
	if len(f) == 0 {
		return fmt.Sprintf("this node has no form, so it takes no field %q; remove --field %s", name, name)
	}
	hint := diag.DidYouMean(name, f.Names())
	if hint != "" {
		hint += " "
	}
	return fmt.Sprintf("the form has no field %q; %sits fields are %s", name, hint, strings.Join(f.Names(), ", "))
}

// Output is the form part of a decided node's output: every declared
// field, nil for one the decision did not fill, so that a template or
// expression naming a field never fails for an optional one left empty.
func (f Form) Output(values map[string]any) map[string]any {
	out := make(map[string]any, len(f))
	for _, fd := range f {
		out[fd.Name] = values[fd.Name]
	}
	return out
}

// ParseAssignments reads `NAME=VALUE` arguments (the repeatable --field
// flag) into a map of raw text values. A name given twice is refused: a
// later value silently replacing an earlier one would hide a typo.
func ParseAssignments(args []string) (map[string]any, error) {
	out := make(map[string]any, len(args))
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("--field %q must be NAME=VALUE, e.g. --field ticket=OPS-12", a)
		}
		if !NameRe.MatchString(k) {
			return nil, fmt.Errorf("--field %q: %q is not a field name (letters, digits and _, starting with a letter or _)", a, k)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("--field %s is given twice; give each field once", k)
		}
		out[k] = v
	}
	return out, nil
}
