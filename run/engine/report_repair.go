package engine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/marker"
)

// A repair turn must be something a model can act on: for every violation
// it names what to write instead — the valid names nearest to the one
// written first, the metric or cell whose value a bare number has — and
// it repeats the catalog entries those alternatives come from, so that the
// model need not find them again in a long system prompt.

// maxAlternatives bounds the alternatives offered per violation.
const maxAlternatives = 3

// repairMessage is the user turn that asks for a rewrite of text.
func repairMessage(text string, vs []evidence.Violation, c *citable) string {
	var b strings.Builder
	b.WriteString("Your report breaks the citation rules:\n")
	list, used := violationList(vs, c)
	b.WriteString(list)
	if entries := catalogEntries(c, used); len(entries) > 0 {
		b.WriteString("The catalog entries these come from:\n")
		b.WriteString(strings.Join(entries, "\n") + "\n")
	}
	b.WriteString("Rewrite the whole report so that every figure is a marker and every marker resolves. Do not write any number yourself.")
	return b.String()
}

// violationList lists every violation (the first 20) with what to write
// instead, and returns the alternatives it offered. The repair turn and
// the failure of a node out of repairs both use it.
func violationList(vs []evidence.Violation, c *citable) (string, []string) {
	var b strings.Builder
	var used []string
	for i, v := range vs {
		if i == 20 {
			fmt.Fprintf(&b, "- … and %d more\n", len(vs)-20)
			break
		}
		fmt.Fprintf(&b, "- %s at byte %d: %q: %s\n", v.Kind, v.Start, clip(v.Text, 80), repairReason(v))
		alts := alternatives(v, c)
		if len(alts) > 0 {
			fmt.Fprintf(&b, "  write instead: %s\n", strings.Join(alts, " or "))
			used = append(used, alts...)
		}
	}
	return b.String(), used
}

// repairReason is the violation's reason in the words of the repair
// turn: the checker's generic examples ([[m:NAME]]) give way to the real
// alternatives listed after it.
func repairReason(v evidence.Violation) string {
	switch v.Kind {
	case vBareNumber:
		if strings.HasPrefix(v.Message, "the number fits several metrics") {
			return v.Message[:strings.Index(v.Message, ";")]
		}
		return "a number written in the text; the system fills numbers in from markers"
	case vUncitedClaim:
		return "a conclusion without a citation"
	}
	return v.Message
}

// alternatives are the markers that could stand where v is, best first.
func alternatives(v evidence.Violation, c *citable) []string {
	switch v.Kind {
	case vBareNumber:
		return markersWithValue(v.Text, c)
	case vUncitedClaim:
		if g := seeExample(c); g != "" {
			return []string{"the sentence with a marker of its evidence, such as [[see:" + g + "]]"}
		}
	case vUnresolved:
		segs, _ := marker.Parse(v.Text)
		for _, sg := range segs {
			if sg.Marker != nil {
				return nearestMarkers(sg.Marker, c)
			}
		}
	}
	return nil
}

// nearestMarkers lists valid markers of the same kind as m, the names
// nearest to m's first.
func nearestMarkers(m *marker.Marker, c *citable) []string {
	switch m.Kind {
	case marker.Metric:
		return wrapAll(nearest(m.Name, c.mnames), "[[m:%s]]")
	case marker.Input:
		return wrapAll(nearest(m.Name, sortedKeys(c.inputs)), "[[i:%s]]")
	case marker.Value, marker.Table:
		s, ok := c.snaps[m.Snapshot]
		if !ok {
			return wrapAll(nearest(m.Snapshot, c.snapIDs), "a marker of %s")
		}
		row := max(min(m.Row, len(s.Rows)-1), 0)
		if m.Kind == marker.Value && colIndex(s, m.Col) >= 0 {
			return []string{fmt.Sprintf("a row from r0 to r%d, as [[v:%s.r%d.%s]]", len(s.Rows)-1, m.Snapshot, row, m.Col)}
		}
		col := m.Col
		if m.Kind == marker.Table {
			for _, x := range m.Cols {
				if colIndex(s, x) < 0 {
					col = x
					break
				}
			}
			if col == "" {
				return []string{fmt.Sprintf("[[table:%s cols=%s rows=0-%d]]", m.Snapshot, strings.Join(s.Columns, ","), min(len(s.Rows), catalogMaxRows)-1)}
			}
		}
		var out []string
		for _, x := range nearest(col, s.Columns) {
			out = append(out, fmt.Sprintf("[[v:%s.r%d.%s]]", m.Snapshot, row, x))
		}
		return out
	case marker.Quote:
		h, ok := c.hits[m.Snapshot]
		if !ok {
			return wrapAll(nearest(m.Snapshot, c.hitIDs), "[[q:%s|exact words from its text]]")
		}
		return []string{fmt.Sprintf("[[q:%s|words copied exactly from: %s]]", m.Snapshot, cut(oneLine(h.Text), 200))}
	case marker.See:
		if g := seeExample(c); g != "" {
			return []string{"[[see:" + g + "]]"}
		}
	}
	return nil
}

// nearest orders names by edit distance to name (then by name) and keeps
// the first few.
func nearest(name string, names []string) []string {
	out := append([]string(nil), names...)
	low := strings.ToLower(name)
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := diag.EditDistance(low, strings.ToLower(out[i])), diag.EditDistance(low, strings.ToLower(out[j]))
		if di != dj {
			return di < dj
		}
		return out[i] < out[j]
	})
	return out[:min(len(out), maxAlternatives)]
}

func wrapAll(names []string, format string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf(format, n)
	}
	return out
}

// markersWithValue lists the metrics and cells whose value is the number
// written (as text: "35900", "35,900", "35.2%"); when none has it, the
// metrics, so that the model still sees what it may cite.
func markersWithValue(text string, c *citable) []string {
	t := strings.TrimSpace(strings.ReplaceAll(text, ",", ""))
	percent := strings.HasSuffix(t, "%")
	digits := strings.TrimSuffix(t, "%")
	x, err := strconv.ParseFloat(digits, 64)
	tol := 0.5
	if _, frac, ok := strings.Cut(digits, "."); ok {
		tol = 0.5 * math.Pow(10, -float64(len(frac)))
	}
	var out []string
	if err == nil {
		for _, name := range c.mnames {
			mv := c.metrics[name]
			if mv.Value == nil {
				continue
			}
			v := *mv.Value
			if percent || mv.Format == "percent" {
				v *= 100
			}
			if roundsTo(v, x, tol) {
				out = append(out, "[[m:"+name+"]]")
			}
		}
		for _, id := range c.snapIDs {
			s := c.snaps[id]
			for i, row := range s.Rows {
				for j, cell := range row {
					if f, ok := number(cell); ok && roundsTo(f, x, tol) && j < len(s.Columns) {
						out = append(out, fmt.Sprintf("[[v:%s.r%d.%s]]", id, i, s.Columns[j]))
					}
				}
			}
		}
	}
	if len(out) == 0 {
		out = wrapAll(c.mnames, "[[m:%s]]")
	}
	return out[:min(len(out), maxAlternatives)]
}

// roundsTo reports whether value v, rounded as the written number x is
// (tol is half a unit of its last digit), is x.
func roundsTo(v, x, tol float64) bool {
	return math.Abs(v-x) <= tol+1e-9*math.Abs(x)
}

// catalogEntries returns the lines of the catalog that the given
// alternatives refer to (a metric's line, a snapshot's header, columns and
// rows, a hit's text), in catalog order.
func catalogEntries(c *citable, alts []string) []string {
	if len(alts) == 0 {
		return nil
	}
	keys := map[string]bool{}
	for _, a := range alts {
		segs, _ := marker.Parse(a)
		for _, sg := range segs {
			m := sg.Marker
			if m == nil {
				continue
			}
			switch m.Kind {
			case marker.Metric:
				keys["[[m:"+m.Name+"]]"] = true
			case marker.Input:
				keys["[[i:"+m.Name+"]]"] = true
			case marker.Value, marker.Table, marker.Quote:
				keys[m.Snapshot] = true
			case marker.See:
				for _, g := range m.Grounds {
					if strings.HasPrefix(g, "m:") {
						keys["[[m:"+g[2:]+"]]"] = true
					} else {
						keys[g] = true
					}
				}
			}
		}
	}
	var out []string
	inEntry := ""
	for _, line := range strings.Split(evidenceCatalog(c), "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			inEntry = ""
			id, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), " ")
			if keys[id] {
				inEntry = id
				out = append(out, line)
			}
		case strings.HasPrefix(line, "  ") && inEntry != "":
			out = append(out, line)
		default:
			inEntry = ""
		}
	}
	return out
}
