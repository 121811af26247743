package run

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/run/provider"
)

// CodeConfigPaths is a [paths] allow entry that opens nothing usable: not
// a list of strings, a directory that does not exist, a file, or the
// whole file system.
const CodeConfigPaths = "E-CONFIG-PATHS"

// checkPathsTable checks the [paths] allow list of agentlab.toml: each
// entry, absolute or relative to the file's directory, must name an
// existing directory other than the root of the file system. A wrong
// entry grants nothing at lint time (fsutil.ProjectRoots resolves it to a
// place no flow file is in), so without this check a path the operator
// meant to open stays refused with no word on why.
func checkPathsTable(file string, data []byte) diag.List {
	var ds diag.List
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	raw, ok := doc["paths"]
	if !ok {
		return nil
	}
	pos := topLevelPos(data, "paths")
	fix := `write [paths] allow = ["../shared-data", "/srv/datasets"]: directories, absolute or relative to agentlab.toml's directory`
	t, ok := raw.(map[string]any)
	if !ok {
		ds.Errorf(file, pos, CodeConfigPaths, fix, "paths is not a table")
		return ds
	}
	for k, v := range t {
		kpos := provider.KeyPos(data, "paths", k)
		if k != "allow" {
			ds.Errorf(file, kpos, CodeConfigPaths, fix, "unknown key %q in [paths]; the only key is allow", k)
			continue
		}
		list, ok := v.([]any)
		if !ok {
			ds.Errorf(file, kpos, CodeConfigPaths, fix, "paths.allow is not a list of directories")
			continue
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok || s == "" {
				ds.Errorf(file, kpos, CodeConfigPaths, fix, "paths.allow holds %v, not the path of a directory", e)
				continue
			}
			if msg := allowProblem(filepath.Dir(file), s); msg != "" {
				ds.Errorf(file, kpos, CodeConfigPaths, "fix or remove the entry: it must name an existing directory (absolute, or relative to agentlab.toml's directory), never / itself", "paths.allow entry %q %s", s, msg)
			}
		}
	}
	return ds.Sorted()
}

// allowProblem says what is wrong with one allow entry, or "".
func allowProblem(base, entry string) string {
	p := entry
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Sprintf("names %s, which does not exist", p)
		}
		return fmt.Sprintf("cannot be resolved: %v", err)
	}
	fi, err := os.Stat(real)
	switch {
	case err != nil:
		return fmt.Sprintf("cannot be read: %v", err)
	case !fi.IsDir():
		return fmt.Sprintf("names %s, which is a file, not a directory", real)
	case filepath.Clean(real) == string(filepath.Separator):
		return "opens the whole file system to every flow"
	}
	return ""
}
