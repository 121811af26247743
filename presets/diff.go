package presets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/plan"
)

// Change kinds of a row-level diff.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	ChangeChanged = "changed"
	ChangeMoved   = "moved"
)

// RowChange is one row that differs between two presets.
type RowChange struct {
	ID     string          `json:"id"`
	Change string          `json:"change"` // added|removed|changed|moved
	A      *plan.PresetRow `json:"a"`      // the row in the first preset, nil when added
	B      *plan.PresetRow `json:"b"`      // the row in the second preset, nil when removed
	// Fields lists what changed, one "field: old -> new" per entry, sorted;
	// config keys appear as config.<key>. A row that also changed its
	// position has the entry "position".
	Fields []string `json:"fields"`
}

// Diff returns the row-level differences from a to b, in b's row order
// with removed rows placed where they were in a. Rows are matched by id;
// a row whose relative order among the common rows changed is "moved".
func Diff(a, b []plan.PresetRow) []RowChange {
	ai := map[string]int{}
	for i, r := range a {
		ai[r.ID] = i
	}
	bi := map[string]int{}
	for i, r := range b {
		bi[r.ID] = i
	}
	moved := movedIDs(a, b, ai, bi)
	var out []RowChange
	// Walk a and b together so removed rows appear at their old place.
	j := 0
	for _, rb := range b {
		if ia, ok := ai[rb.ID]; ok {
			for ; j < ia; j++ {
				if _, still := bi[a[j].ID]; !still {
					ra := a[j]
					out = append(out, RowChange{ID: ra.ID, Change: ChangeRemoved, A: &ra, Fields: []string{}})
				}
			}
			if j == ia {
				j++
			}
			ra := a[ia]
			fields := rowFields(ra, rb)
			if moved[rb.ID] {
				fields = append(fields, "position")
			}
			if len(fields) == 0 {
				continue
			}
			kind := ChangeChanged
			if len(fields) == 1 && fields[0] == "position" {
				kind = ChangeMoved
			}
			rbc := rb
			out = append(out, RowChange{ID: rb.ID, Change: kind, A: &ra, B: &rbc, Fields: fields})
			continue
		}
		rbc := rb
		out = append(out, RowChange{ID: rb.ID, Change: ChangeAdded, B: &rbc, Fields: []string{}})
	}
	for ; j < len(a); j++ {
		if _, still := bi[a[j].ID]; !still {
			ra := a[j]
			out = append(out, RowChange{ID: ra.ID, Change: ChangeRemoved, A: &ra, Fields: []string{}})
		}
	}
	return out
}

// movedIDs marks common rows that are not on a longest common subsequence
// of the two orders: the fewest rows whose moving explains the new order.
func movedIDs(a, b []plan.PresetRow, ai, bi map[string]int) map[string]bool {
	var ca, cb []string
	for _, r := range a {
		if _, ok := bi[r.ID]; ok {
			ca = append(ca, r.ID)
		}
	}
	for _, r := range b {
		if _, ok := ai[r.ID]; ok {
			cb = append(cb, r.ID)
		}
	}
	n, m := len(ca), len(cb)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for k := m - 1; k >= 0; k-- {
			if ca[i] == cb[k] {
				l[i][k] = l[i+1][k+1] + 1
			} else {
				l[i][k] = max(l[i+1][k], l[i][k+1])
			}
		}
	}
	keep := map[string]bool{}
	for i, k := 0, 0; i < n && k < m; {
		switch {
		case ca[i] == cb[k]:
			keep[ca[i]] = true
			i, k = i+1, k+1
		case l[i+1][k] >= l[i][k+1]:
			i++
		default:
			k++
		}
	}
	moved := map[string]bool{}
	for _, id := range ca {
		if !keep[id] {
			moved[id] = true
		}
	}
	return moved
}

// rowFields lists the differences between two rows with the same id.
func rowFields(a, b plan.PresetRow) []string {
	var out []string
	if a.Use != b.Use {
		out = append(out, fmt.Sprintf("use: %s -> %s", show(a.Use), show(b.Use)))
	}
	if a.Disabled != b.Disabled {
		out = append(out, fmt.Sprintf("disabled: %v -> %v", a.Disabled, b.Disabled))
	}
	keys := map[string]bool{}
	for k := range a.Config {
		keys[k] = true
	}
	for k := range b.Config {
		keys[k] = true
	}
	var cfg []string
	for k := range keys {
		va, ina := a.Config[k]
		vb, inb := b.Config[k]
		switch {
		case !ina:
			cfg = append(cfg, fmt.Sprintf("config.%s: (unset) -> %s", k, show(vb)))
		case !inb:
			cfg = append(cfg, fmt.Sprintf("config.%s: %s -> (unset)", k, show(va)))
		case !reflect.DeepEqual(va, vb):
			cfg = append(cfg, fmt.Sprintf("config.%s: %s -> %s", k, show(va), show(vb)))
		}
	}
	sort.Strings(cfg)
	return append(out, cfg...)
}

// show renders a config value as compact JSON.
func show(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
