package canon

import (
	"bytes"
	"unicode/utf8"
)

// Most JSON that is canonicalised is canonical already: event data read
// back from events.jsonl (re-checked by every reader of a run, several
// times per event), and encoding/json output of maps (sorted keys, no
// whitespace). isCanonical recognises such text in one pass without
// allocating, so Canonicalize can return a copy instead of decoding into
// interface values and writing them out again.
//
// It must never accept text whose canonical form differs from it; it may
// refuse canonical text it does not bother to prove canonical (object keys
// with escapes, very deep nesting), which then takes the slow path.

// MaxFastDepth bounds the nesting the canonical readers follow; deeper
// values take the slow path, which has encoding/json's own limit.
const MaxFastDepth = 200

// IsCanonical reports whether b is canonical JSON as this package writes
// it (see isCanonical: it may refuse some canonical text, never accept
// other text).
func IsCanonical(b []byte) bool { return isCanonical(b) }

// CanonicalPrefix returns the length of the canonical JSON value b starts
// with, by the rules of IsCanonical, without reading past it: for readers
// of a canonical document that holds other JSON (an event line's data).
// ok is false when b does not start with one.
func CanonicalPrefix(b []byte) (n int, ok bool) {
	v := validator{b: b}
	if !v.value(0) {
		return 0, false
	}
	return v.i, true
}

func isCanonical(b []byte) bool {
	v := validator{b: b}
	return v.value(0) && v.i == len(b)
}

type validator struct {
	b []byte
	i int
}

func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) || depth > MaxFastDepth {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{':
		return v.object(depth + 1)
	case c == '[':
		return v.array(depth + 1)
	case c == '"':
		_, ok := v.str()
		return ok
	case c == 't':
		return v.lit("true")
	case c == 'f':
		return v.lit("false")
	case c == 'n':
		return v.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return v.num()
	}
	return false
}

func (v *validator) lit(s string) bool {
	if !bytes.HasPrefix(v.b[v.i:], []byte(s)) {
		return false
	}
	v.i += len(s)
	return true
}

func (v *validator) object(depth int) bool {
	v.i++ // {
	if v.i < len(v.b) && v.b[v.i] == '}' {
		v.i++
		return true
	}
	var prev []byte
	for n := 0; ; n++ {
		if v.i >= len(v.b) || v.b[v.i] != '"' {
			return false
		}
		key, ok := v.str()
		// a key with an escape would have to be decoded to be ordered
		if !ok || bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		// keys strictly increasing in byte order: sorted, no duplicates
		if n > 0 && bytes.Compare(prev, key) >= 0 {
			return false
		}
		prev = key
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return false
		}
		v.i++
		if !v.value(depth) {
			return false
		}
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
		case '}':
			v.i++
			return true
		default:
			return false
		}
	}
}

func (v *validator) array(depth int) bool {
	v.i++ // [
	if v.i < len(v.b) && v.b[v.i] == ']' {
		v.i++
		return true
	}
	for {
		if !v.value(depth) || v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
		case ']':
			v.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string literal in the form writeString produces: valid
// UTF-8 as is, and only the escapes \" \\ \n \r \t \b \f and \u00xx
// (lowercase hex) for the other control characters. It returns the bytes
// between the quotes.
func (v *validator) str() ([]byte, bool) {
	v.i++ // opening quote
	start := v.i
	for v.i < len(v.b) {
		c := v.b[v.i]
		switch {
		case c == '"':
			s := v.b[start:v.i]
			v.i++
			return s, true
		case c == '\\':
			if v.i+1 >= len(v.b) {
				return nil, false
			}
			switch v.b[v.i+1] {
			case '"', '\\', 'n', 'r', 't', 'b', 'f':
				v.i += 2
			case 'u':
				if v.i+6 > len(v.b) || !controlEscape(v.b[v.i+2:v.i+6]) {
					return nil, false
				}
				v.i += 6
			default:
				return nil, false
			}
		case c < 0x20:
			return nil, false
		case c < utf8.RuneSelf:
			v.i++
		default:
			r, size := utf8.DecodeRune(v.b[v.i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, false
			}
			v.i += size
		}
	}
	return nil, false
}

// controlEscape reports whether h (four bytes after \u) is how writeString
// spells a control character: 00 then two lowercase hex digits below 0x20,
// except the five that have a short escape.
func controlEscape(h []byte) bool {
	if h[0] != '0' || h[1] != '0' || (h[2] != '0' && h[2] != '1') {
		return false
	}
	d := h[3]
	var lo byte
	switch {
	case d >= '0' && d <= '9':
		lo = d - '0'
	case d >= 'a' && d <= 'f':
		lo = d - 'a' + 10
	default:
		return false
	}
	r := (h[2]-'0')<<4 | lo
	switch r {
	case '\b', '\t', '\n', '\f', '\r':
		return false
	}
	return true
}

// num reads a number literal and accepts it only if Number would write it
// unchanged (which also rejects every literal that is not valid JSON).
func (v *validator) num() bool {
	start := v.i
	for v.i < len(v.b) {
		c := v.b[v.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			v.i++
			continue
		}
		break
	}
	lit := v.b[start:v.i]
	if smallInt(lit) {
		return true
	}
	n, err := Number(string(lit))
	return err == nil && n == string(lit)
}

// smallInt reports whether lit is an integer of at most 15 digits in the
// form Number writes it (no sign but a minus, no leading zero, no "-0"):
// the common case, checked without parsing.
func smallInt(lit []byte) bool {
	d := lit
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || d[0] == '0' && (len(d) > 1 || len(lit) > 1) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
