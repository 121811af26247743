package compile

import (
	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/diag"
)

// vkind is the shape of a loaded YAML value.
type vkind uint8

const (
	vScalar vkind = iota
	vMap
	vSeq
)

// V is one YAML value with the position it was written at. Aliases are
// resolved while loading by sharing the anchored value, so a V may be
// reachable from several parents; nothing mutates a V after loading.
type V struct {
	Kind  vkind
	Tag   string // resolved yaml tag of a scalar: !!str, !!int, !!float, !!bool, !!null, …
	Str   string // scalar value
	Style yaml.Style
	Line  int
	Col   int
	// Keys and Vals hold a mapping's entries in source order (merge keys
	// already applied).
	Keys []*V
	Vals []*V
	// Items holds a sequence's elements.
	Items []*V
}

// Pos returns the position of v for a diagnostic.
func (v *V) Pos() diag.Pos {
	if v == nil {
		return diag.Pos{Line: 1, Col: 1}
	}
	return diag.Pos{Line: v.Line, Col: v.Col}
}

// IsNull reports whether v is absent or an explicit YAML null.
func (v *V) IsNull() bool { return v == nil || (v.Kind == vScalar && v.Tag == "!!null") }

// Get returns the value of key in a mapping, or nil.
func (v *V) Get(key string) *V {
	if v == nil || v.Kind != vMap {
		return nil
	}
	for i, k := range v.Keys {
		if k.Str == key {
			return v.Vals[i]
		}
	}
	return nil
}

// KeyOf returns the key node of key in a mapping, or nil.
func (v *V) KeyOf(key string) *V {
	if v == nil || v.Kind != vMap {
		return nil
	}
	for _, k := range v.Keys {
		if k.Str == key {
			return k
		}
	}
	return nil
}

// kindName names v's shape in messages.
func (v *V) kindName() string {
	if v == nil {
		return "nothing"
	}
	switch v.Kind {
	case vMap:
		return "a mapping"
	case vSeq:
		return "a list"
	}
	switch v.Tag {
	case "!!null":
		return "null"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	}
	return "a string"
}
