package ptc

import (
	"math"
	"sort"
)

// typeKind is the shape of a type derived from JSON Schema.
type typeKind int

const (
	tAny typeKind = iota
	tString
	tInteger
	tNumber
	tBoolean
	tNull
	tArray   // elem
	tMap     // string keys, elem values
	tObject  // props
	tLiteral // lit
	tUnion   // union
)

// sdkType is a language-neutral type; both renderers read it, so the two
// SDKs always agree on what a schema means.
type sdkType struct {
	kind  typeKind
	elem  *sdkType
	props []prop
	lit   any // string, float64, bool or nil
	union []*sdkType
}

type prop struct {
	name     string
	typ      *sdkType
	required bool
	desc     string
}

var anyType = &sdkType{kind: tAny}

// maxSchemaDepth bounds recursion on deeply nested (or hostile) schemas;
// anything deeper is rendered as the unknown type.
const maxSchemaDepth = 24

// fromSchema maps a JSON Schema to an sdkType. Shapes it does not model
// ($ref, allOf, not, conditionals, tuples, …) become the unknown type:
// rendering never fails.
func fromSchema(s any, depth int) *sdkType {
	m, ok := s.(map[string]any)
	if !ok || depth > maxSchemaDepth {
		return anyType
	}
	if c, ok := m["const"]; ok {
		if isScalar(c) {
			return &sdkType{kind: tLiteral, lit: normNum(c)}
		}
		return anyType
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		var u []*sdkType
		for _, v := range e {
			if !isScalar(v) {
				return anyType
			}
			u = append(u, &sdkType{kind: tLiteral, lit: normNum(v)})
		}
		return unionOf(u)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			var u []*sdkType
			for _, a := range alts {
				u = append(u, fromSchema(a, depth+1))
			}
			return unionOf(u)
		}
	}
	switch t := m["type"].(type) {
	case string:
		return fromTyped(t, m, depth)
	case []any:
		var u []*sdkType
		for _, x := range t {
			name, ok := x.(string)
			if !ok {
				return anyType
			}
			u = append(u, fromTyped(name, m, depth))
		}
		if len(u) == 0 {
			return anyType
		}
		return unionOf(u)
	case nil:
		if _, ok := m["properties"]; ok {
			return fromTyped("object", m, depth)
		}
		if _, ok := m["items"]; ok {
			return fromTyped("array", m, depth)
		}
	}
	return anyType
}

func fromTyped(name string, m map[string]any, depth int) *sdkType {
	switch name {
	case "string":
		return &sdkType{kind: tString}
	case "integer":
		return &sdkType{kind: tInteger}
	case "number":
		return &sdkType{kind: tNumber}
	case "boolean":
		return &sdkType{kind: tBoolean}
	case "null":
		return &sdkType{kind: tNull}
	case "array":
		items, ok := m["items"].(map[string]any)
		if !ok {
			return &sdkType{kind: tArray, elem: anyType}
		}
		return &sdkType{kind: tArray, elem: fromSchema(items, depth+1)}
	case "object":
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 {
			elem := anyType
			if ap, ok := m["additionalProperties"].(map[string]any); ok {
				elem = fromSchema(ap, depth+1)
			}
			return &sdkType{kind: tMap, elem: elem}
		}
		required := map[string]bool{}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					required[s] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		t := &sdkType{kind: tObject}
		for _, k := range names {
			desc := ""
			if pm, ok := props[k].(map[string]any); ok {
				desc, _ = pm["description"].(string)
			}
			t.props = append(t.props, prop{name: k, typ: fromSchema(props[k], depth+1), required: required[k], desc: desc})
		}
		return t
	}
	return anyType
}

// unionOf collapses a one-member union and any union containing the
// unknown type (which absorbs everything).
func unionOf(u []*sdkType) *sdkType {
	for _, t := range u {
		if t.kind == tAny {
			return anyType
		}
	}
	if len(u) == 1 {
		return u[0]
	}
	return &sdkType{kind: tUnion, union: u}
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, string, bool, float64, int, int64:
		return true
	}
	return false
}

// normNum turns integer types into float64 so literals render the same
// whether the schema came from JSON or was built in Go.
func normNum(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

func isInt(f float64) bool { return f == math.Trunc(f) && math.Abs(f) < 1<<53 }
