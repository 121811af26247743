// Package answer says which text of a run's outputs is its answer to an
// evaluation's question, and how much of it a case keeps: the rule the
// evaluation scores by and the verifier checks a recorded case against.
//
// Where it fits: docs/architecture.md#evaluation.
package answer

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxBytes bounds the answer text a case keeps.
const MaxBytes = 2000

// Text picks the text numbers are read from: the named output field; else
// the field "answer" when there is one; else every string field, in key
// order, that does not merely repeat an input (a flow echoing the question
// would otherwise "answer" with the question's own numbers).
func Text(outputs map[string]any, field string, inputs map[string]any) string {
	if field != "" {
		return stringOf(outputs[field])
	}
	if v, ok := outputs["answer"]; ok {
		return stringOf(v)
	}
	keys := make([]string, 0, len(outputs))
	for k := range outputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	echo := map[string]bool{}
	for _, v := range inputs {
		if s, ok := v.(string); ok {
			echo[s] = true
		}
	}
	var parts []string
	for _, k := range keys {
		s, ok := outputs[k].(string)
		if !ok || echo[s] {
			continue
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n")
}

// Cut keeps at most n bytes of s, at a character boundary, and marks a cut
// with "…".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func stringOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}
