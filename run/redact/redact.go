// Package redact keeps secret values out of everything agentlab stores or
// prints. The values of `secret.NAME` references and of provider keys are
// registered when they are read from the environment; from then on every
// tool result, event, artifact, record and console line passes through
// String, Bytes or Value, which replace each value — and the encodings a
// server might echo it back in — with [REDACTED].
//
// The set is process-wide: one agentlab process runs one run, and a value
// that was secret for one purpose is secret for every other.
//
// Where it fits: docs/architecture.md#running.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mark replaces a secret value.
const Mark = "[REDACTED]"

// MinLen is the shortest value redacted: replacing shorter strings would
// mangle ordinary text ("on", "123") while hiding almost nothing.
const MinLen = 4

var set struct {
	mu      sync.RWMutex
	seen    map[string]bool
	needles []string // longest first, so a value is replaced before its parts
	rep     *strings.Replacer
}

// Add registers a secret value and the forms it can take on the way back:
// as-is, JSON-escaped (with and without HTML escaping), URL-encoded (query
// and path), base64 (standard and URL alphabets, padded or not), and, when
// the value is itself base64 text (a Basic credential), what it decodes to
// and the parts of a decoded user:password.
func Add(value string) {
	if len(value) < MinLen {
		return
	}
	forms := encodings(value)
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.seen == nil {
		set.seen = map[string]bool{}
	}
	added := false
	for _, f := range forms {
		if len(f) >= MinLen && !set.seen[f] {
			set.seen[f] = true
			set.needles = append(set.needles, f)
			added = true
		}
	}
	if !added {
		return
	}
	sort.SliceStable(set.needles, func(i, j int) bool { return len(set.needles[i]) > len(set.needles[j]) })
	pairs := make([]string, 0, 2*len(set.needles))
	for _, n := range set.needles {
		pairs = append(pairs, n, Mark)
	}
	set.rep = strings.NewReplacer(pairs...)
}

func encodings(v string) []string {
	out := []string{v}
	js, _ := json.Marshal(v)
	out = append(out, string(js[1:len(js)-1]))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	out = append(out, strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:])
	out = append(out, url.QueryEscape(v), url.PathEscape(v))
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		out = append(out, e.EncodeToString([]byte(v)))
	}
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		d, err := e.DecodeString(v)
		if err != nil || !utf8.Valid(d) || len(d) < MinLen || !printable(d) {
			continue
		}
		out = append(out, string(d))
		if user, pass, ok := strings.Cut(string(d), ":"); ok {
			out = append(out, user+":"+pass, pass)
		}
		break
	}
	return out
}

func printable(b []byte) bool {
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// Active reports whether any secret is registered.
func Active() bool {
	set.mu.RLock()
	defer set.mu.RUnlock()
	return set.rep != nil
}

// String returns s with every registered value replaced.
func String(s string) string {
	set.mu.RLock()
	rep := set.rep
	set.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// Bytes returns b with every registered value replaced; b itself when
// nothing was.
func Bytes(b []byte) []byte {
	set.mu.RLock()
	rep := set.rep
	set.mu.RUnlock()
	if rep == nil {
		return b
	}
	s := rep.Replace(string(b))
	if len(s) == len(b) && s == string(b) {
		return b
	}
	return []byte(s)
}

// Contains reports whether s holds a registered value in any of its forms.
func Contains(s string) bool { return String(s) != s }

// ContainsLong reports whether s holds a registered form at least
// minLen bytes long: for a check that refuses work rather than masking a
// few bytes, where a short value ("test") would match ordinary text.
func ContainsLong(s string, minLen int) bool {
	set.mu.RLock() // held while reading: Add sorts the needles in place
	defer set.mu.RUnlock()
	for _, n := range set.needles {
		if len(n) >= minLen && strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// Value returns v (decoded JSON: maps, slices, strings, numbers…) with
// every string, key included, redacted. Replacing inside the decoded
// values, not the encoded bytes, keeps JSON valid whatever the secret
// looks like. Values without a secret are returned as they are.
func Value(v any) any {
	if !Active() {
		return v
	}
	out, _ := value(v)
	return out
}

func value(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		r := String(x)
		return r, r != x
	case map[string]any:
		changed := false
		m := make(map[string]any, len(x))
		for k, e := range x {
			r, c := value(e)
			rk := String(k)
			changed = changed || c || rk != k
			m[rk] = r
		}
		if !changed {
			return x, false
		}
		return m, true
	case []any:
		changed := false
		s := make([]any, len(x))
		for i, e := range x {
			r, c := value(e)
			changed = changed || c
			s[i] = r
		}
		if !changed {
			return x, false
		}
		return s, true
	}
	return v, false
}

// JSON redacts JSON text: when b holds a registered value it is decoded,
// redacted value by value (Value) and encoded again with marshal; text
// that is not JSON is redacted as bytes. b is returned unchanged when it
// holds no secret.
func JSON(b []byte, marshal func(any) ([]byte, error)) ([]byte, error) {
	r := Bytes(b)
	if len(r) == len(b) && bytes.Equal(r, b) {
		return b, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return r, nil
	}
	return marshal(Value(v))
}

// Any returns v with every secret value replaced, whatever its Go type:
// when its JSON holds a registered value it is decoded and redacted value
// by value (Value), so the result is plain decoded JSON (maps, slices,
// json.Number…); v itself is returned when it holds none or does not
// encode.
func Any(v any) any {
	if !Active() || v == nil {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil || !Contains(string(b)) {
		return v
	}
	var d any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return v
	}
	return Value(d)
}

// Writer redacts everything written through it to w. Each Write is
// redacted on its own, so a value split across two writes is not caught:
// the CLI writes whole lines and whole JSON documents.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (x writer) Write(p []byte) (int, error) {
	if _, err := x.w.Write(Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
