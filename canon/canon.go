// Package canon writes canonical JSON: object keys sorted by their UTF-8
// bytes, no insignificant whitespace, no HTML escaping, numbers in one
// normal form. Plans, events and seals are hashed over these bytes, so the
// Go writer and the JavaScript verifier must produce exactly the same text.
//
// Where it fits: docs/architecture.md#leaf-formats.
package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Marshal returns the canonical JSON encoding of v, as encoding/json would
// encode it (struct tags apply) re-written in canonical form. Values of
// the plain shapes are written directly (see appendReflect); the others
// take that round trip.
func Marshal(v any) ([]byte, error) {
	// Written into a pooled buffer and copied at its final size: one
	// allocation instead of a buffer doubling its way up.
	bp := marshalBufs.Get().(*[]byte)
	b, ok := appendReflect((*bp)[:0], v)
	if !ok {
		marshalBufs.Put(bp)
		return marshalSlow(v)
	}
	out := bytes.Clone(b)
	if cap(b) <= 64<<10 {
		*bp = b[:0]
	}
	marshalBufs.Put(bp)
	return out, nil
}

var marshalBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// marshalSlow is Marshal through encoding/json: the value encoded, then
// decoded and written again in canonical form. It is the definition the
// direct writers (AppendValue, appendReflect) are held to.
func marshalSlow(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Canonicalize(raw)
}

// Canonicalize re-writes arbitrary JSON text in canonical form. Text that
// is canonical already is recognised in one pass and returned as a copy
// (see isCanonical).
func Canonicalize(raw []byte) ([]byte, error) {
	if isCanonical(raw) {
		return bytes.Clone(raw), nil
	}
	return canonicalizeSlow(raw)
}

// canonicalizeSlow decodes raw and writes it out again.
func canonicalizeSlow(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	// More would miss a stray closing bracket; anything but whitespace
	// after the value is trailing data.
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, fmt.Errorf("canon: trailing data after JSON value")
	}
	var buf bytes.Buffer
	if err := write(&buf, x); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func write(buf *bytes.Buffer, x any) error {
	switch v := x.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if v {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		s, err := Number(string(v))
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case string:
		writeString(buf, v)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := write(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("canon: unexpected %T", x)
	}
	return nil
}

// Number normalises a JSON number literal: integers that fit in 53 bits
// are written without fraction or exponent; everything else is written as
// the shortest float64 form, in exponent notation only when the exponent
// is below -6 or at least 21 (the ECMAScript rule, so browsers agree).
func Number(lit string) (string, error) {
	if i, err := strconv.ParseInt(lit, 10, 64); err == nil && i >= -(1<<53) && i <= 1<<53 {
		return strconv.FormatInt(i, 10), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("canon: number %q out of range", lit)
	}
	return FormatFloat(f), nil
}

// ValidNumber reports whether s is a JSON number literal (RFC 8259):
// Number itself also takes Go's other spellings ("+1", "0x10", "1_0"),
// which a json.Number must not carry into canonical text.
func ValidNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// FormatFloat writes f as ECMAScript's Number.prototype.toString would.
func FormatFloat(f float64) string {
	if f == 0 {
		return "0"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // like 1.5e-07
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	if exp == "" {
		exp = "0"
	}
	return mant + "e" + string(sign) + exp
}

func writeString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(buf, `\u%04x`, r)
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// AppendString appends s to dst as a canonical JSON string literal, for
// writers that assemble canonical objects of known shape without a
// round trip through encoding/json.
func AppendString(dst []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
	}
	if plain { // printable ASCII needs no escaping
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	buf := bytes.NewBuffer(dst)
	writeString(buf, s)
	return buf.Bytes()
}
