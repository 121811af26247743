package tmpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/compile/expr"
)

// filterSpec describes one template filter.
type filterSpec struct {
	min, max int
	usage    string
	apply    func(v any, args []any) (any, error)
}

func (f filterSpec) arity() string {
	switch {
	case f.max == 0:
		return "no arguments"
	case f.min == f.max:
		return "exactly 1 argument"
	}
	return "at most 1 argument"
}

// filters are the only transformations a template can apply. Every filter
// passes nil through (except default and length), so that
// `| upper | default('n/a')` works on a missing value.
var filters = map[string]filterSpec{
	"json":    {0, 0, "| json", func(v any, _ []any) (any, error) { return toJSON(v, true) }},
	"compact": {0, 0, "| compact", func(v any, _ []any) (any, error) { return toJSON(v, false) }},
	"upper":   {0, 0, "| upper", caseFilter(strings.ToUpper)},
	"lower":   {0, 0, "| lower", caseFilter(strings.ToLower)},
	"length":  {0, 0, "| length", length},
	"first":   {0, 0, "| first", func(v any, _ []any) (any, error) { return end(v, true) }},
	"last":    {0, 0, "| last", func(v any, _ []any) (any, error) { return end(v, false) }},
	"join":    {0, 1, "| join or | join(' / ')", join},
	"default": {1, 1, "| default('text')", func(v any, args []any) (any, error) {
		if v == nil {
			return args[0], nil
		}
		return v, nil
	}},
}

// filterAliases are names from other template languages.
var filterAliases = map[string]string{
	"len": "length", "count": "length", "size": "length", "tojson": "json", "to_json": "json",
	"dump": "json", "upcase": "upper", "downcase": "lower", "d": "default",
}

// Filters returns the filter names, sorted, for the documentation.
func Filters() []string {
	out := make([]string, 0, len(filters))
	for name := range filters {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// toJSON writes v as canonical JSON (sorted keys, canonical numbers),
// indented by two spaces when pretty.
func toJSON(v any, pretty bool) (any, error) {
	b, err := canon.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot write the value as JSON: %v", err)
	}
	if !pretty {
		return string(b), nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	return out.String(), nil
}

func caseFilter(f func(string) string) func(any, []any) (any, error) {
	return func(v any, _ []any) (any, error) {
		if v == nil {
			return nil, nil
		}
		s, err := expr.Stringify(v)
		if err != nil {
			return nil, err
		}
		return f(s), nil
	}
}

func length(v any, _ []any) (any, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case string:
		return utf8.RuneCountInString(x), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len(), nil
	}
	return nil, fmt.Errorf("length needs text, a list or a map, not %T", v)
}

// end returns the first or last item of a list, or character of a text.
func end(v any, first bool) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok {
		if s == "" {
			return nil, nil
		}
		if first {
			r, _ := utf8.DecodeRuneInString(s)
			return string(r), nil
		}
		r, _ := utf8.DecodeLastRuneInString(s)
		return string(r), nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("first and last need a list, not %T", v)
	}
	if rv.Len() == 0 {
		return nil, nil
	}
	if first {
		return rv.Index(0).Interface(), nil
	}
	return rv.Index(rv.Len() - 1).Interface(), nil
}

// join renders the items of a list and joins them with the separator.
func join(v any, args []any) (any, error) {
	if v == nil {
		return nil, nil
	}
	sep := ", "
	if len(args) == 1 {
		s, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("the separator of join must be text")
		}
		sep = s
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("join needs a list, not %T", v)
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		s, err := expr.Stringify(rv.Index(i).Interface())
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	return strings.Join(parts, sep), nil
}
