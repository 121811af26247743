package presets

import (
	"fmt"

	"github.com/agentlab/agentlab/plan"
)

// problem is a contradiction between the rows of a resolved preset; row
// names the row it is about, key the contradiction whatever the values in
// its message (so that it can be followed from op to op).
type problem struct {
	row, msg, fix, key string
}

// singletons are row kinds of which at most one row may be enabled: the
// agent has one persona, one presentation, one sandbox, one compaction.
var singletons = []string{UsePersona, UsePresentation, UseSandbox, UseCompaction}

// consistency checks the enabled rows of a preset against each other.
func consistency(rows []plan.PresetRow) []problem {
	var out []problem
	firstOfUse := map[string]string{}
	toolRow := map[string]string{}
	var compressAt, wrapUpAt float64
	var compressRow, wrapRow string
	for _, r := range rows {
		if r.Disabled {
			continue
		}
		if contains(singletons, r.Use) {
			if first, dup := firstOfUse[r.Use]; dup {
				out = append(out, problem{r.ID, fmt.Sprintf("rows %q and %q are both enabled %s rows; only one may be", first, r.ID, r.Use),
					"disable or remove one of them", "singleton " + first + " " + r.ID})
			} else {
				firstOfUse[r.Use] = r.ID
			}
		}
		switch r.Use {
		case UseTool:
			name, _ := r.Config["name"].(string)
			if first, dup := toolRow[name]; dup {
				out = append(out, problem{r.ID, fmt.Sprintf("rows %q and %q both enable tool %q", first, r.ID, name),
					"disable or remove one of them", "tool " + first + " " + r.ID})
			} else {
				toolRow[name] = r.ID
			}
		case UseCompaction:
			if v, ok := r.Config["compress_at"].(float64); ok {
				compressAt, compressRow = v, r.ID
			}
		case UseGuardrail:
			if v, ok := r.Config["wrap_up_at"].(float64); ok {
				wrapUpAt, wrapRow = v, r.ID
			}
		}
	}
	for _, r := range rows {
		if r.Disabled || r.Use != UsePresentation {
			continue
		}
		if mode, _ := r.Config["mode"].(string); mode == PresentPTC || mode == PresentBoth {
			if _, ok := toolRow["run_code"]; !ok {
				out = append(out, problem{r.ID, fmt.Sprintf("presentation %q folds tools into run_code, but no enabled tool row names run_code", mode),
					"enable the run_code tool row (enable: tool.run_code) or use mode: native", "run_code " + r.ID})
			}
		}
	}
	if compressRow != "" && wrapRow != "" && compressAt >= wrapUpAt {
		out = append(out, problem{compressRow, fmt.Sprintf("compress_at %g is not below wrap_up_at %g (row %q); the agent would stop before compacting", compressAt, wrapUpAt, wrapRow),
			"set compress_at below wrap_up_at", "compress " + compressRow + " " + wrapRow})
	}
	return out
}
