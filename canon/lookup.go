package canon

import "bytes"

// LookupString returns the string value of key at the top level of the
// canonical JSON object b, read without decoding the rest: the reader of
// one field of a large event (the tier of a run.finished) skips the
// others. ok is false when b is not a canonical object, when key is
// absent or not a string without escapes, or when another top-level key
// equals key but for case (encoding/json would match it too); the caller
// then decodes b with encoding/json.
func LookupString(b []byte, key string) (value string, ok bool) {
	v := validator{b: b}
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return "", false
	}
	v.i = 1
	found := false
	var prev []byte
	for n := 0; ; n++ {
		if v.i >= len(b) || b[v.i] != '"' {
			return "", false
		}
		k, ok := v.str()
		if !ok || bytes.IndexByte(k, '\\') >= 0 || (n > 0 && bytes.Compare(prev, k) >= 0) {
			return "", false
		}
		prev = k
		if v.i >= len(b) || b[v.i] != ':' {
			return "", false
		}
		v.i++
		start := v.i
		if !v.value(1) {
			return "", false
		}
		switch {
		case string(k) == key:
			raw := b[start:v.i]
			if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
				return "", false
			}
			value, found = string(raw[1:len(raw)-1]), true
		case bytes.EqualFold(k, []byte(key)):
			return "", false
		}
		if v.i >= len(b) {
			return "", false
		}
		switch b[v.i] {
		case ',':
			v.i++
		case '}':
			v.i++
			if !found || v.i != len(b) {
				return "", false
			}
			return value, true
		default:
			return "", false
		}
	}
}
