package ptc

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/fsutil"
)

// ConfigFileName is the project configuration file searched up the tree.
const ConfigFileName = "agentlab.toml"

// fileFields maps the keys of the [ptc] table to FileConfig fields.
func fileFields(f *FileConfig) map[string]*string {
	return map[string]*string{
		"mode":              &f.Mode,
		"user_allowlist":    &f.UserAllowlist,
		"toolset_allowlist": &f.ToolsetAllowlist,
		"toolset_blocklist": &f.ToolsetBlocklist,
		"rollout_percent":   &f.RolloutPercent,
		"rollout_salt":      &f.RolloutSalt,
		"debug":             &f.Debug,
	}
}

// FindConfigFile returns the nearest agentlab.toml in dir or one of its
// parents, or "" when there is none.
func FindConfigFile(dir string) string {
	return fsutil.FindUp(dir, ConfigFileName)
}

// LoadFileConfig reads the [ptc] table of the nearest agentlab.toml above
// dir. It returns nil (and no error) when there is no such file or the file
// has no [ptc] table; an error only when the file exists but cannot be read
// or parsed.
func LoadFileConfig(dir string) (*FileConfig, error) {
	path := FindConfigFile(dir)
	if path == "" {
		return nil, nil
	}
	data, err := fsutil.ReadFileCapped(path, 4<<20, "keep agentlab.toml under 4 MiB")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return ParseFileConfig(path, data)
}

// ParseFileConfig reads the [ptc] table from agentlab.toml bytes. Lists
// may be TOML arrays of strings or comma-separated strings; rollout_percent
// may be a number or a string; debug may be a string or the legacy boolean
// true. Unknown keys and values of the wrong type are warnings.
func ParseFileConfig(path string, data []byte) (*FileConfig, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %s", path, row, col, de.Error())
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	raw, ok := doc["ptc"]
	if !ok {
		return nil, nil
	}
	table, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: ptc must be a table ([ptc])", path)
	}
	f := &FileConfig{Path: path}
	fields := fileFields(f)
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dst, known := fields[k]
		if !known {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s: [ptc] key %q is not known (known: %s); it is ignored", path, k, strings.Join(sortedNames(fields), ", ")))
			continue
		}
		if b, isBool := table[k].(bool); isBool && !b && k == "debug" {
			continue // debug = false means no filter
		}
		s, ok := tomlString(table[k])
		if !ok {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s: [ptc] %s has a value of the wrong type; it is ignored", path, k))
			continue
		}
		*dst = s
	}
	return f, nil
}

// tomlString converts a TOML value to the environment-variable syntax.
func tomlString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case []any:
		items := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok || strings.Contains(s, ",") {
				return "", false
			}
			items = append(items, s)
		}
		return strings.Join(items, ","), true
	}
	return "", false
}

func sortedNames(m map[string]*string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
