package presets

import (
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
)

// Apply applies the patch's ops, in order, to a copy of base and returns
// the new rows. The result depends only on base and the ops, never on map
// order or timing. Every op that cannot apply is reported and skipped, so
// one run reports every problem.
func (p *Patch) Apply(base []plan.PresetRow) ([]plan.PresetRow, diag.List) {
	var ds diag.List
	skip := conflicts(p, &ds)
	rows := cloneRows(base)
	index := func(id string) int {
		for i, r := range rows {
			if r.ID == id {
				return i
			}
		}
		return -1
	}
	missing := func(op Op, id string, pos diag.Pos) {
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		fix := "name one of: " + strings.Join(ids, ", ")
		if s := suggest(id, ids); s != "" {
			fix = fmt.Sprintf("did you mean %q? %s", s, fix)
		}
		ds.Errorf(p.File, pos, CodeMissingID, fix, "%s: the preset has no row %q", op.Kind, id)
	}
	for i, op := range p.Ops {
		if skip[i] {
			continue
		}
		switch op.Kind {
		case OpInsert:
			if index(op.ID) >= 0 {
				ds.Errorf(p.File, op.IDPos, CodeDuplicateID, "pick a new id, or use replace to change the existing row",
					"insert: the preset already has a row %q", op.ID)
				continue
			}
			at := index(op.Anchor)
			if at < 0 {
				missing(op, op.Anchor, op.AnchorPos)
				continue
			}
			if !op.Before {
				at++
			}
			row := cloneRow(op.Row.Row)
			rows = append(rows[:at], append([]plan.PresetRow{row}, rows[at:]...)...)
		case OpReplace, OpDisable, OpEnable, OpRemove:
			at := index(op.ID)
			if at < 0 {
				missing(op, op.ID, op.IDPos)
				continue
			}
			switch op.Kind {
			case OpReplace:
				before := len(ds)
				validateConfig(p.File, op.ID, rows[at].Use, op.Config, configPos(op.cfgNode, op.Pos), &ds)
				if len(ds) == before {
					rows[at].Config = cloneMap(op.Config)
				}
			case OpDisable:
				rows[at].Disabled = true
			case OpEnable:
				rows[at].Disabled = false
			case OpRemove:
				rows = append(rows[:at], rows[at+1:]...)
			}
		}
	}
	return rows, ds
}

func cloneRows(rows []plan.PresetRow) []plan.PresetRow {
	out := make([]plan.PresetRow, len(rows))
	for i, r := range rows {
		out[i] = cloneRow(r)
	}
	return out
}

func cloneRow(r plan.PresetRow) plan.PresetRow {
	r.Config = cloneMap(r.Config)
	return r
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}
