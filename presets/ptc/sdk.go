package ptc

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentlab/agentlab/canon"
)

// ToolInfo describes one tool for the SDK: its name, a description for the
// model, and JSON Schemas of its arguments and output (either may be nil).
type ToolInfo struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Args        map[string]any `json:"args"`
	Output      map[string]any `json:"output"`
}

// SDK languages.
const (
	LangTypeScript = "typescript"
	LangPython     = "python"
)

// IsLanguage reports whether lang is an SDK language RenderSDK knows.
func IsLanguage(lang string) bool { return lang == LangTypeScript || lang == LangPython }

// RenderSDK returns the SDK text code mode shows the model: the usage
// contract, then for each tool (sorted by name) its argument and result
// types and a function declaration. The text depends only on the set of
// tools, never on the order they were registered in, so the same tool set
// always gives byte-identical text (and the same plan and prompt hashes).
// lang is "typescript" or "python"; any other value renders Python, the
// preset default (presets validate sdk_language before it gets here).
func RenderSDK(tools []ToolInfo, lang string) string {
	sorted := sortTools(tools)
	r := newRenderer(lang)
	for _, t := range sorted {
		r.tool(t)
	}
	return r.String()
}

// sortTools orders tools by name; two tools with the same name are ordered
// by their canonical JSON so the order is total.
func sortTools(tools []ToolInfo) []ToolInfo {
	type keyed struct {
		t   ToolInfo
		key string
	}
	ks := make([]keyed, len(tools))
	for i, t := range tools {
		b, err := canon.Marshal(t)
		if err != nil {
			b = []byte(t.Description)
		}
		ks[i] = keyed{t, string(b)}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		if ks[i].t.Name != ks[j].t.Name {
			return ks[i].t.Name < ks[j].t.Name
		}
		return ks[i].key < ks[j].key
	})
	out := make([]ToolInfo, len(ks))
	for i, k := range ks {
		out[i] = k.t
	}
	return out
}

// names hands out unique identifiers: a second request for the same
// identifier gets a numeric suffix.
type names struct{ used map[string]bool }

func (n *names) unique(id string) string {
	if n.used == nil {
		n.used = map[string]bool{}
	}
	out := id
	for i := 2; n.used[out]; i++ {
		out = id + "_" + strconv.Itoa(i)
	}
	n.used[out] = true
	return out
}

// identifier turns a tool name into a function identifier: characters
// outside [A-Za-z0-9_] become '_', a leading digit gets a '_' prefix, and
// reserved words get a '_' suffix.
func identifier(name string, reserved map[string]bool) string {
	var b strings.Builder
	for _, r := range name {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "_" + s
	}
	if reserved[s] {
		s += "_"
	}
	return s
}

// camel turns a name into an UpperCamelCase type-name fragment.
func camel(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		if r >= unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "T" + s
	}
	return s
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r >= unicode.MaxASCII || !(unicode.IsLetter(r) || r == '_' || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// lines splits a description into trimmed lines without trailing blanks.
func lines(s string) []string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimRight(l, " \t"))
	}
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

// renderer is implemented once per language.
type renderer interface {
	tool(t ToolInfo)
	String() string
}

func newRenderer(lang string) renderer {
	if lang == LangTypeScript {
		return newTS()
	}
	return newPy()
}

// jsonLit renders a literal the way both languages' JSON-like syntax does.
func jsonLit(v any) string {
	b, err := canon.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// buffer is a bytes.Buffer with a printf-free line helper.
type buffer struct{ bytes.Buffer }

func (b *buffer) line(parts ...string) {
	for _, p := range parts {
		b.WriteString(p)
	}
	b.WriteByte('\n')
}
