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
//
// A large flow has about nine Vs per node, so their size is most of a
// compile's memory: a V keeps one slice of children (a sequence's items,
// or a mapping's keys followed by its values) and takes 72 bytes, and the
// loader carves Vs out of blocks (converter.newV).
type V struct {
	Tag string // resolved yaml tag of a scalar: !!str, !!int, !!float, !!bool, !!null, …
	Str string // scalar value
	// kids holds a sequence's elements, or a mapping's keys and then its
	// values, in source order (merge keys already applied): see Keys,
	// Vals and Items.
	kids  []*V
	Line  int32
	Col   int32
	Style yaml.Style
	Kind  vkind
}

// Keys returns a mapping's keys in source order (nil for other values).
func (v *V) Keys() []*V {
	if v.Kind != vMap {
		return nil
	}
	return v.kids[: len(v.kids)/2 : len(v.kids)/2]
}

// Vals returns a mapping's values, Vals()[i] being the value of Keys()[i].
func (v *V) Vals() []*V {
	if v.Kind != vMap {
		return nil
	}
	return v.kids[len(v.kids)/2:]
}

// Items returns a sequence's elements (nil for other values).
func (v *V) Items() []*V {
	if v.Kind != vSeq {
		return nil
	}
	return v.kids
}

// Pos returns the position of v for a diagnostic.
func (v *V) Pos() diag.Pos {
	if v == nil {
		return diag.Pos{Line: 1, Col: 1}
	}
	return diag.Pos{Line: int(v.Line), Col: int(v.Col)}
}

// IsNull reports whether v is absent or an explicit YAML null.
func (v *V) IsNull() bool { return v == nil || (v.Kind == vScalar && v.Tag == "!!null") }

// Get returns the value of key in a mapping, or nil.
func (v *V) Get(key string) *V {
	if v == nil || v.Kind != vMap {
		return nil
	}
	for i, k := range v.Keys() {
		if k.Str == key {
			return v.Vals()[i]
		}
	}
	return nil
}

// KeyOf returns the key node of key in a mapping, or nil.
func (v *V) KeyOf(key string) *V {
	if v == nil || v.Kind != vMap {
		return nil
	}
	for _, k := range v.Keys() {
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
