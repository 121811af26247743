package runlog

import (
	"bytes"
	"encoding/json"
)

// MaxIndentDepth is the deepest nesting written indented. Indenting
// costs every line its depth in spaces, so a value nested N deep takes
// N² bytes: an input of 18 KB, nine thousand nested lists, made a
// run.json of 158 MB that every later command read whole.
const MaxIndentDepth = 32

// MarshalReadable encodes v as json.MarshalIndent does (two spaces) when
// it nests at most MaxIndentDepth deep, and compact otherwise, so that a
// file agentlab writes for people (run.json, checkpoint.json,
// outputs.json) stays linear in what it holds.
func MarshalReadable(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if depth(b) > MaxIndentDepth {
		return b, nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// depth is the deepest nesting of objects and arrays in valid JSON.
func depth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}
