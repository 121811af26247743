package canon

import (
	"strconv"
	"unicode/utf8"
)

// DecodeCanonical reads canonical JSON into the values encoding/json's
// Unmarshal gives an interface: map[string]any, []any, string, float64,
// bool and nil. Writers that normalise a value by writing it as canonical
// JSON and reading it back (so that a fresh run and a resumed one see the
// same values) take this path instead of encoding/json's reflection. ok is
// false for text the canonical reader does not accept (see isCanonical);
// the caller then uses encoding/json, which also gives the error.
// FuzzDecodeCanonicalEqualsUnmarshal holds it to encoding/json.
func DecodeCanonical(b []byte) (v any, ok bool) {
	d := decoder{validator{b: b}}
	v, ok = d.value(0)
	if !ok || d.i != len(b) {
		return nil, false
	}
	return v, true
}

type decoder struct{ validator }

func (d *decoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) || depth > MaxFastDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.lit("true")
	case c == 'f':
		return false, d.lit("false")
	case c == 'n':
		return nil, d.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		if !d.num() {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
		return f, err == nil
	}
	return nil, false
}

func (d *decoder) object(depth int) (any, bool) {
	m := map[string]any{}
	d.i++ // {
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	var prev string
	for n := 0; ; n++ {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		kv, ok := d.string()
		if !ok {
			return nil, false
		}
		key := kv.(string)
		// keys strictly increasing in byte order: sorted, no duplicates
		if n > 0 && prev >= key {
			return nil, false
		}
		prev = key
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value(depth)
		if !ok || d.i >= len(d.b) {
			return nil, false
		}
		m[key] = v
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *decoder) array(depth int) (any, bool) {
	a := []any{}
	d.i++ // [
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth)
		if !ok || d.i >= len(d.b) {
			return nil, false
		}
		a = append(a, v)
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// string reads a string in the form writeString produces (see
// validator.str) and returns it unescaped.
func (d *decoder) string() (any, bool) {
	start := d.i + 1
	raw, ok := d.str()
	if !ok {
		return nil, false
	}
	esc := false
	for _, c := range raw {
		if c == '\\' {
			esc = true
			break
		}
	}
	if !esc {
		return string(d.b[start : start+len(raw)]), true
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case '"', '\\':
			out = append(out, raw[i])
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u': // \u00xx, a control character (str checked the form)
			n, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 8)
			if err != nil {
				return nil, false
			}
			out = utf8.AppendRune(out, rune(n))
			i += 4
		}
	}
	return string(out), true
}
