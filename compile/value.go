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

// vtag is the resolved YAML tag of a scalar, as far as the compiler tells
// tags apart: every other tag (!!timestamp, !!binary, a custom tag) reads
// as a string, as !!str does.
type vtag uint8

const (
	tagOther vtag = iota
	tagStr
	tagNull
	tagBool
	tagInt
	tagFloat
)

// tagOf maps a yaml.v3 short tag to a vtag.
func tagOf(short string) vtag {
	switch short {
	case "!!str":
		return tagStr
	case "!!null":
		return tagNull
	case "!!bool":
		return tagBool
	case "!!int":
		return tagInt
	case "!!float":
		return tagFloat
	}
	return tagOther
}

// V is one YAML value with the position it was written at. Aliases are
// resolved while loading by sharing the anchored value, so a V may be
// reachable from several parents; nothing mutates a V after loading.
//
// A large flow has about nine Vs per node, most of them scalars, so their
// size is most of a compile's memory: a V takes 40 bytes. A mapping's or
// sequence's children sit behind one pointer, nil for scalars, and the
// loader carves Vs and their child lists out of blocks (converter.newV).
type V struct {
	Str string // scalar value
	// kids holds a sequence's elements, or a mapping's keys and then its
	// values, in source order (merge keys already applied): see Keys,
	// Vals and Items. It is nil for scalars and may be nil for an empty
	// collection.
	kids  *[]*V
	Line  int32
	Col   int32
	Style yaml.Style
	Tag   vtag // resolved tag of a scalar
	Kind  vkind
}

// children returns v's child list (nil when it has none).
func (v *V) children() []*V {
	if v.kids == nil {
		return nil
	}
	return *v.kids
}

// Keys returns a mapping's keys in source order (nil for other values).
func (v *V) Keys() []*V {
	if v.Kind != vMap {
		return nil
	}
	k := v.children()
	return k[: len(k)/2 : len(k)/2]
}

// Vals returns a mapping's values, Vals()[i] being the value of Keys()[i].
func (v *V) Vals() []*V {
	if v.Kind != vMap {
		return nil
	}
	k := v.children()
	return k[len(k)/2:]
}

// Items returns a sequence's elements (nil for other values).
func (v *V) Items() []*V {
	if v.Kind != vSeq {
		return nil
	}
	return v.children()
}

// Pos returns the position of v for a diagnostic.
func (v *V) Pos() diag.Pos {
	if v == nil {
		return diag.Pos{Line: 1, Col: 1}
	}
	return diag.Pos{Line: int(v.Line), Col: int(v.Col)}
}

// IsNull reports whether v is absent or an explicit YAML null.
func (v *V) IsNull() bool { return v == nil || (v.Kind == vScalar && v.Tag == tagNull) }

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
	case tagNull:
		return "null"
	case tagInt:
		return "an integer"
	case tagFloat:
		return "a number"
	case tagBool:
		return "a boolean"
	}
	return "a string"
}
