package canon

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// appendReflect writes the canonical JSON of v straight from the Go value
// for the shapes encoding/json writes plainly: booleans, strings, integers,
// float64, pointers, interfaces, slices, maps with string keys, and structs
// whose fields are named by plain json tags (with or without omitempty).
// Anything else — a type with its own MarshalJSON or MarshalText, float32,
// []byte, arrays, embedded or ",string" fields, invalid UTF-8 in a map key,
// a value with no JSON form — makes ok false, and the caller writes v the
// slow way, through encoding/json, which also gives its errors. What it
// writes is exactly what that way writes (TestReflectEqualsSlowPath,
// FuzzReflectEqualsSlowPath).
func appendReflect(dst []byte, v any) (out []byte, ok bool) {
	if v == nil {
		return append(dst, "null"...), true
	}
	return appendRV(dst, reflect.ValueOf(v), 0)
}

// maxDepth bounds the nesting the fast path follows; deeper values (or a
// cycle through pointers) take the slow path and its error.
const maxDepth = 500

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
)

func appendRV(dst []byte, v reflect.Value, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return nil, false
	}
	t := v.Type()
	switch t {
	case rawMessageType:
		raw := v.Bytes()
		if raw == nil {
			return append(dst, "null"...), true
		}
		c, err := Canonicalize(raw)
		if err != nil {
			return nil, false
		}
		return append(dst, c...), true
	case numberType:
		if !ValidNumber(v.String()) {
			return nil, false
		}
		s, err := Number(v.String())
		if err != nil {
			return nil, false
		}
		return append(dst, s...), true
	}
	if ownMarshaler(t) {
		return nil, false
	}
	switch t.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case reflect.String:
		return AppendString(dst, v.String()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return AppendInt(dst, v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > 1<<53 {
			return nil, false
		}
		return AppendInt(dst, int64(u)), true
	case reflect.Float64:
		b, err := AppendFloat(dst, v.Float())
		return b, err == nil
	case reflect.Pointer:
		if v.IsNil() {
			return append(dst, "null"...), true
		}
		return appendRV(dst, v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return append(dst, "null"...), true
		}
		b, err := appendValue(dst, v.Interface(), depth+1)
		return b, err == nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, false // base64 in encoding/json
		}
		if v.IsNil() {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i := range v.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendRV(dst, v.Index(i), depth+1); !ok {
				return nil, false
			}
		}
		return append(dst, ']'), true
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, false
		}
		if v.IsNil() {
			return append(dst, "null"...), true
		}
		if m, ok := v.Interface().(map[string]any); ok {
			b, err := appendValue(dst, m, depth+1)
			return b, err == nil
		}
		type entry struct {
			k string
			v reflect.Value
		}
		es := make([]entry, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			if !utf8.ValidString(k) {
				return nil, false // encoding/json rewrites it, which can reorder or merge keys
			}
			es = append(es, entry{k, it.Value()})
		}
		slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.k, b.k) })
		dst = append(dst, '{')
		for i, e := range es {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(AppendString(dst, e.k), ':')
			var ok bool
			if dst, ok = appendRV(dst, e.v, depth+1); !ok {
				return nil, false
			}
		}
		return append(dst, '}'), true
	case reflect.Struct:
		fs := fieldsOf(t)
		if fs == nil {
			return nil, false
		}
		dst = append(dst, '{')
		first := true
		for _, f := range fs.list {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.key...)
			var ok bool
			if dst, ok = appendRV(dst, fv, depth+1); !ok {
				return nil, false
			}
		}
		return append(dst, '}'), true
	}
	return nil, false
}

// ownMarshaler reports whether encoding/json would let t (or *t) write
// itself (remembered per type: the method-set lookups cost more than
// writing a small value).
func ownMarshaler(t reflect.Type) bool {
	if v, ok := marshalerCache.Load(t); ok {
		return v.(bool)
	}
	own := implementsMarshaler(t)
	marshalerCache.Store(t, own)
	return own
}

var marshalerCache sync.Map // reflect.Type → bool

func implementsMarshaler(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		p := reflect.PointerTo(t)
		if p.Implements(marshalerType) || p.Implements(textMarshalerType) {
			return true
		}
	}
	return t.Kind() != reflect.Interface && (t.Implements(marshalerType) || t.Implements(textMarshalerType))
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// structFields is how a struct type is written: its JSON fields in
// canonical key order. A nil *structFields means the fast path does not
// write the type.
type structFields struct {
	list []structField
}

type structField struct {
	index     int
	key       string // the quoted name and its colon
	name      string
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type → *structFields (nil when unsupported)

func fieldsOf(t reflect.Type) *structFields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*structFields)
	}
	fs := buildFields(t)
	fieldCache.Store(t, fs)
	return fs
}

func buildFields(t reflect.Type) *structFields {
	fs := &structFields{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil // embedding promotes fields by rules the fast path leaves to encoding/json
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omit := false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				omit = true
			default:
				return nil // ",string", ",omitzero" and what else may come
			}
		}
		if name == "" {
			name = f.Name
		} else if !plainTagName(name) {
			return nil
		}
		if seen[name] {
			return nil // encoding/json drops both of two fields of one name
		}
		seen[name] = true
		fs.list = append(fs.list, structField{index: i, name: name, omitEmpty: omit, key: string(AppendString(nil, name)) + ":"})
	}
	slices.SortFunc(fs.list, func(a, b structField) int { return strings.Compare(a.name, b.name) })
	return fs
}

// plainTagName accepts the tag names every JSON writer spells the same:
// letters, digits and a few punctuation marks.
func plainTagName(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return true
}
