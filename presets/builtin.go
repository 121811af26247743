package presets

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
	"gopkg.in/yaml.v3"
)

//go:embed builtin/*.yml
var builtinFS embed.FS

// DefaultName is the preset a flow gets when it names none.
const DefaultName = "standard"

// Info describes a built-in preset.
type Info struct {
	Name        string
	Description string
	Rows        []plan.PresetRow
}

var (
	builtinOnce  sync.Once
	builtinByKey map[string]Info
	builtinDiags diag.List
)

// loadBuiltins parses the embedded files once. They are read with the same
// row parser as patches, so a built-in can never hold a row a patch could
// not; a test asserts they parse without diagnostics.
func loadBuiltins() {
	builtinByKey = map[string]Info{}
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		builtinDiags.Errorf("builtin", diag.Pos{}, CodeRead, "rebuild agentlab", "embedded presets unreadable: %v", err)
		return
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yml")
		file := path.Join("builtin", e.Name())
		data, err := builtinFS.ReadFile(file)
		if err != nil {
			builtinDiags.Errorf(file, diag.Pos{}, CodeRead, "rebuild agentlab", "%v", err)
			continue
		}
		info, ds := parseBuiltin(file, name, data)
		builtinDiags = append(builtinDiags, ds...)
		if !ds.HasErrors() {
			builtinByKey[name] = info
		}
	}
}

var builtinKeys = []string{"description", "rows"}

// parseBuiltin reads a preset file: {description, rows: [row…]}.
func parseBuiltin(file, name string, data []byte) (Info, diag.List) {
	var ds diag.List
	info := Info{Name: name}
	doc, ok := parseYAML(file, data, &ds)
	if !ok {
		return info, ds
	}
	d := &decoder{file: file, ds: &ds}
	root := d.documentRoot(doc)
	if root == nil || root.Kind != yaml.MappingNode {
		ds.Errorf(file, posOf(root), CodeSchema, "write a mapping with description: and rows:", "a preset file must be a mapping")
		return info, ds
	}
	var rows []parsedRow
	d.eachPair(root, func(k, v *yaml.Node) {
		switch k.Value {
		case "description":
			info.Description, _ = d.str(v, "description")
		case "rows":
			if v.Kind != yaml.SequenceNode {
				ds.Errorf(file, posOf(v), CodeSchema, "write rows as a list", "rows must be a list")
				return
			}
			for _, item := range v.Content {
				if r, ok := d.row(item); ok {
					rows = append(rows, r)
				}
			}
		default:
			ds.Errorf(file, posOf(k), CodeUnknownKey, fixUnknown(k.Value, builtinKeys), "unknown key %q", k.Value)
		}
	})
	seen := map[string]parsedRow{}
	for _, r := range rows {
		if first, dup := seen[r.Row.ID]; dup {
			ds.Errorf(file, r.IDPos, CodeDuplicateID, "give each row its own id", "row id %q is used twice (first at line %d)", r.Row.ID, first.IDPos.Line)
			continue
		}
		seen[r.Row.ID] = r
		info.Rows = append(info.Rows, r.Row)
	}
	for _, p := range consistency(info.Rows) {
		ds.Errorf(file, seen[p.row].Pos, CodeConsistency, p.fix, "%s", p.msg)
	}
	return info, ds
}

// Builtins returns the names of the built-in presets, sorted.
func Builtins() []string {
	builtinOnce.Do(loadBuiltins)
	names := make([]string, 0, len(builtinByKey))
	for n := range builtinByKey {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builtin returns a copy of a built-in preset. It comes from
// builtin_table.go, the presets as Go values generated from the embedded
// files (TestBuiltinTable keeps the two equal), so that a lint or compile
// parses no YAML for its preset: parsing even the one it needs was a
// few percent of the time of `agentlab lint` on a small flow.
func Builtin(name string) (Info, bool) {
	return builtinTable(name)
}

// builtinProblems returns the diagnostics of the embedded files; empty in
// every released build (a test asserts it).
func builtinProblems() diag.List {
	builtinOnce.Do(loadBuiltins)
	return builtinDiags
}

// IsBuiltin reports whether name is a built-in preset.
func IsBuiltin(name string) bool {
	_, ok := Builtin(name)
	return ok
}

// unknownPresetFix is the fix sentence for an unknown preset name.
func unknownPresetFix(name string) string {
	fix := fmt.Sprintf("use a built-in preset (%s) or a path to a *.patch.yml file", strings.Join(Builtins(), ", "))
	if s := suggest(name, Builtins()); s != "" {
		fix = fmt.Sprintf("did you mean %q? %s", s, fix)
	}
	return fix
}
