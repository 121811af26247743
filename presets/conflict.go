package presets

import (
	"fmt"

	"github.com/agentlab/agentlab/diag"
)

// conflicts finds pairs of operations on the same row that contradict each
// other or make each other meaningless, so that the result never depends on
// which of two ops a reader thinks comes first. It returns the indexes of
// the ops to skip when applying. Rules, for two ops on the same id:
//
//   - the same verb twice (disable twice, replace twice, …);
//   - remove together with any other op, or used as an insert anchor;
//   - disable together with enable;
//   - insert together with replace/disable/enable/remove of the new row
//     (write the final row in the insert instead);
//   - insert of an id twice (reported as a duplicate id).
func conflicts(p *Patch, ds *diag.List) map[int]bool {
	skip := map[int]bool{}
	first := map[string][]int{} // id -> indexes of ops acting on it
	for i, op := range p.Ops {
		for _, j := range first[op.ID] {
			prev := p.Ops[j]
			if msg, code := conflictOf(prev, op); msg != "" {
				fix := fmt.Sprintf("keep one of the two ops on %q", op.ID)
				if prev.Kind == OpInsert && op.Kind != OpInsert {
					fix = fmt.Sprintf("write the final row in the insert at line %d and drop this op", prev.Pos.Line)
				}
				ds.Errorf(p.File, op.Pos, code, fix, "%s (the other op is at line %d)", msg, prev.Pos.Line)
				skip[i] = true
				break
			}
		}
		first[op.ID] = append(first[op.ID], i)
	}
	// An insert anchored on a row that the patch removes.
	for i, op := range p.Ops {
		if op.Kind != OpInsert || op.Anchor == "" {
			continue
		}
		for _, j := range first[op.Anchor] {
			if p.Ops[j].Kind == OpRemove {
				ds.Errorf(p.File, op.AnchorPos, CodeConflict, "anchor the insert on a row that stays",
					"insert of %q is placed next to %q, which this patch removes at line %d", op.ID, op.Anchor, p.Ops[j].Pos.Line)
				skip[i] = true
			}
		}
	}
	return skip
}

// conflictOf says why b contradicts an earlier op a on the same id.
func conflictOf(a, b Op) (string, string) {
	id := b.ID
	switch {
	case a.Kind == OpInsert && b.Kind == OpInsert:
		return fmt.Sprintf("row %q is inserted twice", id), CodeDuplicateID
	case a.Kind == b.Kind:
		return fmt.Sprintf("%s %q appears twice", b.Kind, id), CodeConflict
	case a.Kind == OpInsert:
		return fmt.Sprintf("%s %q acts on a row inserted by this patch", b.Kind, id), CodeConflict
	case b.Kind == OpInsert:
		return fmt.Sprintf("insert %q adds a row that an earlier op already acts on", id), CodeDuplicateID
	case a.Kind == OpRemove || b.Kind == OpRemove:
		other := a.Kind
		if other == OpRemove {
			other = b.Kind
		}
		return fmt.Sprintf("row %q is both removed and %s", id, pastTense(other)), CodeConflict
	case (a.Kind == OpDisable && b.Kind == OpEnable) || (a.Kind == OpEnable && b.Kind == OpDisable):
		return fmt.Sprintf("row %q is both disabled and enabled", id), CodeConflict
	}
	return "", ""
}

func pastTense(k OpKind) string {
	switch k {
	case OpReplace:
		return "replaced"
	case OpDisable:
		return "disabled"
	case OpEnable:
		return "enabled"
	}
	return string(k) + "ed"
}
