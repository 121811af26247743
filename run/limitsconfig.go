package run

import (
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/provider"
)

// CodeConfigLimit is a [limits] key that names no cap, or a cap that is
// not a positive size.
const CodeConfigLimit = "E-CONFIG-LIMIT"

// checkLimitsTable reports every wrong key and value of the [limits] table
// of agentlab.toml at its position. Every command but doctor refuses such
// a file (fsutil.ConfigureCaps), so that a cap the operator meant to set
// never silently stays at its default.
func checkLimitsTable(file string, data []byte) diag.List {
	var ds diag.List
	_, probs := fsutil.ParseLimits(data)
	keys := make([]string, 0, len(probs))
	for k := range probs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pos := topLevelPos(data, fsutil.LimitsTable)
		fix := "write a positive size in bytes or with a unit, e.g. source_bytes = \"4GiB\"; the caps are " + strings.Join(fsutil.CapKeys(), ", ")
		if k != "" {
			pos = provider.KeyPos(data, fsutil.LimitsTable, k)
			if fsutil.CapByKey(k) == nil {
				if s := diag.DidYouMean(k, fsutil.CapKeys()); s != "" {
					fix = s + " " + fix
				}
			}
		}
		ds.Errorf(file, pos, CodeConfigLimit, fix, "%s", probs[k])
	}
	return ds
}
