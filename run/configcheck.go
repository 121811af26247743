package run

import (
	"errors"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/tools"
	"github.com/agentlab/agentlab/run/tools/mcp"
)

// Codes of a configuration file as a whole (the codes of each table are
// those of its reader: E-PERM-…, E-MCP-…, E-PROVCFG-…, E-TOOL-FETCHCFG).
const (
	// CodeConfigTOML is a configuration file that cannot be read or is not
	// valid TOML: no table of it can be used.
	CodeConfigTOML = "E-CONFIG-TOML"
	// CodeConfigTable is a top-level table no reader of that file knows
	// (usually a misspelt [permissions]); it is ignored.
	CodeConfigTable = "W-CONFIG-TABLE"
	// CodePermMemory is a permissions.json whose remembered decisions are
	// not used: its signature does not match (edited by hand, or not
	// written by this user's agentlab) or it is in an older form.
	CodePermMemory = "W-PERM-MEMORY"
)

// projectTables are the tables read from the project's agentlab.toml, and
// userTables those read from the user's config.toml.
var (
	projectTables = []string{"http_fetch", "limits", "mcp", "paths", "permissions", "providers", "ptc", "sandbox", "secrets", "store"}
	userTables    = []string{"mcp", "permissions", "providers", "sandbox", "secrets", "store", "trust"}
)

// CheckConfigFile checks every table of a configuration file at once: the
// project's agentlab.toml (project true) or the user's config.toml. A run
// reads each table only when it needs it ([mcp] when the flow names an MCP
// tool, [providers] with a remote provider), so a mistake can go unseen
// until then; `agentlab doctor` calls this to report them all up front.
// A missing file gives no diagnostics. The [ptc] table is left to the PTC
// chain (presets/ptc), whose problems are warnings with their own wording.
func CheckConfigFile(file string, project bool) diag.List {
	var ds diag.List
	data, err := fsutil.ReadConfigFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		ds.Errorf(file, diag.Pos{Line: 1, Col: 1}, CodeConfigTOML, "check that the file is readable", "cannot read the configuration: %v", err)
		return ds
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		// One diagnostic for the syntax, not one per table reader.
		pos := diag.Pos{Line: 1, Col: 1}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			pos = diag.Pos{Line: max(row, 1), Col: max(col, 1)}
		}
		ds.Errorf(file, pos, CodeConfigTOML, "fix the TOML syntax at the position shown", "not valid TOML: %s", strings.TrimPrefix(err.Error(), "toml: "))
		return ds
	}
	known := userTables
	if project {
		known = projectTables
	}
	names := make([]string, 0, len(doc))
	for k := range doc {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if slices.Contains(known, k) {
			continue
		}
		fix := "rename it to one of the tables agentlab reads here (" + strings.Join(known, ", ") + "), or remove it"
		if s := diag.DidYouMean(k, known); s != "" {
			fix = s + " " + fix
		}
		where := "agentlab.toml"
		if !project {
			where = "the user config file"
		}
		ds.Warnf(file, topLevelPos(data, k), CodeConfigTable, fix, "table [%s] is not read from %s; it is ignored", k, where)
	}
	if _, l := permission.ParseConfig(file, data); len(l) > 0 {
		ds = append(ds, l...)
	}
	if project {
		if _, l := tools.ParseFetchConfig(file, data); len(l) > 0 {
			ds = append(ds, l...)
		}
		ds = append(ds, checkLimitsTable(file, data)...)
		ds = append(ds, checkPathsTable(file, data)...)
	}
	if !project {
		if _, l := parseTrust(file, data); len(l) > 0 {
			ds = append(ds, l...)
		}
	}
	if _, l := parseSandboxTable(file, data); len(l) > 0 {
		ds = append(ds, l...)
	}
	if _, l := tools.ParseSecretsConfig(file, data); len(l) > 0 {
		ds = append(ds, l...)
	}
	if _, l := mcp.ParseConfig(file, data); len(l) > 0 {
		ds = append(ds, l...)
	}
	provider.RegisterEndpointStrings(data)
	_, l := provider.ParseConfig(file, data, project)
	if len(l) > 0 {
		ds = append(ds, l...)
	}
	return ds.Sorted()
}

// topLevelPos finds where the top-level key name is first written: a
// [name] or [[name…]] header, a dotted header [name.x], or a key name = …
// / name.x = … before the first header. It falls back to 1:1.
func topLevelPos(data []byte, name string) diag.Pos {
	inTable := false
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		col := len(raw) - len(strings.TrimLeft(raw, " \t")) + 1
		if strings.HasPrefix(line, "[") {
			inTable = true
			h := strings.TrimSpace(strings.Trim(strings.SplitN(line, "#", 2)[0], "[] \t\r"))
			first, _, _ := strings.Cut(h, ".")
			if strings.Trim(strings.TrimSpace(first), `"'`) == name {
				return diag.Pos{Line: i + 1, Col: col}
			}
			continue
		}
		if inTable {
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimSpace(k), ".")
		if strings.Trim(strings.TrimSpace(first), `"'`) == name {
			return diag.Pos{Line: i + 1, Col: col}
		}
	}
	return diag.Pos{Line: 1, Col: 1}
}
