package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/evidence/marker"
	erender "github.com/agentlab/agentlab/evidence/render"
)

// The evidence catalog is the part of a report node's system prompt that
// lists, with the exact marker to write, everything the report may cite.
// Every provider gets it in the same text (a real model can only cite
// what it is shown), it is stored as an artifact named by the node's
// record, and so it is sealed with the run. Its format is documented in
// docs/evidence.md and held stable by a golden test: change both together.

// Caps of the catalog, so that a wide or long query result does not
// swamp the prompt. A model cites any row by its index whether shown or
// not; the rows shown are there so that it can tell which row says what.
const (
	catalogMaxRows      = 10  // rows shown per snapshot
	catalogMaxCellChars = 60  // characters shown per cell
	catalogMaxSQLChars  = 400 // characters shown of a snapshot's SQL
)

// catalogHeading opens the catalog; the stand-in model of the tests finds
// the catalog by it.
const catalogHeading = "Citable evidence (cite only what is listed here, with the exact marker shown; any other name does not resolve):"

// evidenceCatalog renders what c holds as the catalog text: inputs,
// metrics with their formatted values, snapshots with source, SQL,
// columns, row count and first rows, and knowledge hits with their text.
// It is deterministic: c's lists are sorted.
func evidenceCatalog(c *citable) string {
	var b strings.Builder
	b.WriteString(catalogHeading + "\n")
	empty := true
	if ins := sortedKeys(c.inputs); len(ins) > 0 {
		empty = false
		b.WriteString("\nInputs:\n")
		for _, k := range ins {
			fmt.Fprintf(&b, "- [[i:%s]]\n", k)
		}
	}
	var metrics []string
	for _, name := range c.mnames {
		if s, ok := erender.FormatMetric(c.metrics[name], ""); ok {
			metrics = append(metrics, fmt.Sprintf("- [[m:%s]] = %s", name, s))
		}
	}
	if len(metrics) > 0 {
		empty = false
		b.WriteString("\nMetrics (the system writes the value shown):\n")
		b.WriteString(strings.Join(metrics, "\n") + "\n")
	}
	if len(c.snapIDs) > 0 {
		empty = false
		b.WriteString("\nQuery results (cite any cell as the markers of r0 show, with its row: r0, r1 …):\n")
		for _, id := range c.snapIDs {
			writeCatalogSnapshot(&b, id, c)
		}
	}
	if len(c.hitIDs) > 0 {
		empty = false
		b.WriteString("\nKnowledge hits (quote words copied exactly from the text):\n")
		for _, id := range c.hitIDs {
			h := c.hits[id]
			fmt.Fprintf(&b, "- %s from %s: %s\n", id, oneLine(h.Path), oneLine(h.Text))
			fmt.Fprintf(&b, "  quote: [[q:%s|exact words from the text]]\n", id)
		}
	}
	if empty {
		b.WriteString("\nNothing: write no figures.\n")
	}
	return b.String()
}

// writeCatalogSnapshot lists one snapshot: what produced it, its columns
// with a cell marker of row 0 each, a table marker, and its first rows.
func writeCatalogSnapshot(b *strings.Builder, id string, c *citable) {
	s := c.snaps[id]
	from := "node " + s.Node
	if s.Source != "" {
		from += ", source " + s.Source
	}
	rows := fmt.Sprintf("%d rows", len(s.Rows))
	if len(s.Rows) == 1 {
		rows = "1 row"
	}
	if s.Truncated {
		rows += ", cut off at the row cap"
	}
	fmt.Fprintf(b, "- %s (%s, %s)", id, from, rows)
	if sql := oneLine(s.SQL); sql != "" {
		fmt.Fprintf(b, ": %s", cut(sql, catalogMaxSQLChars))
	}
	b.WriteString("\n")
	if ps := sortedKeys(s.Params); len(ps) > 0 {
		vals := make([]string, len(ps))
		for i, k := range ps {
			vals[i] = k + "=" + cut(oneLine(erender.FormatInput(s.Params[k])), catalogMaxCellChars)
		}
		fmt.Fprintf(b, "  params: %s\n", strings.Join(vals, ", "))
	}
	if len(s.Columns) == 0 {
		return
	}
	fmt.Fprintf(b, "  columns: %s\n", strings.Join(s.Columns, ", "))
	if len(s.Rows) == 0 {
		return
	}
	var cells, cols, unnamed []string
	for _, col := range s.Columns {
		if cell := cellMarker(id, 0, col); cell != "" {
			cells = append(cells, cell)
		} else {
			unnamed = append(unnamed, col)
		}
		if tableColumn(id, col) {
			cols = append(cols, col)
		}
	}
	if len(cells) > 0 {
		fmt.Fprintf(b, "  cells of r0: %s\n", strings.Join(cells, " "))
	}
	if len(unnamed) > 0 {
		fmt.Fprintf(b, "  no marker can name the cells of: %s\n", strings.Join(unnamed, ", "))
	}
	if len(cols) > 0 {
		fmt.Fprintf(b, "  table: [[table:%s cols=%s rows=0-%d]]\n", id, strings.Join(cols, ","), min(len(s.Rows), catalogMaxRows)-1)
	}
	shown := min(len(s.Rows), catalogMaxRows)
	for i := 0; i < shown; i++ {
		vals := make([]string, 0, len(s.Columns))
		for j, col := range s.Columns {
			v := "NULL"
			if j < len(s.Rows[i]) {
				v = erender.FormatCell(s.Rows[i][j])
			}
			vals = append(vals, col+"="+cut(oneLine(v), catalogMaxCellChars))
		}
		fmt.Fprintf(b, "  r%d: %s\n", i, strings.Join(vals, " | "))
	}
	if shown < len(s.Rows) {
		fmt.Fprintf(b, "  (rows r%d to r%d not shown)\n", shown, len(s.Rows)-1)
	}
}

// oneLine collapses white space runs (line breaks included) to one
// space, so that every entry stays on its line. A quotation is checked
// with white space normalised the same way, so words copied from the
// collapsed text still match their hit.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to n characters, marking the cut with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// citationGuide is the start of the text appended to a report node's
// system prompt: the model writes markers, never numbers, and the system
// fills the values in. Its examples use names from the catalog, so that
// no placeholder stands where a real name exists; a kind of marker with
// nothing to cite is not offered.
func citationGuide(c *citable) string {
	var b strings.Builder
	b.WriteString("Write every figure as a citation marker; never write a number yourself. The system fills each marker in from the sealed evidence.\nMarkers:\n")
	if len(c.mnames) > 0 {
		m := c.mnames[0]
		fmt.Fprintf(&b, "[[m:%s]] a metric; [[m:%s|万]] in a display unit (万 亿 千 k M B %%)\n", m, m)
	}
	if ins := sortedKeys(c.inputs); len(ins) > 0 {
		fmt.Fprintf(&b, "[[i:%s]] an input\n", ins[0])
	}
	if cell, table := snapshotExamples(c); cell != "" {
		fmt.Fprintf(&b, "%s one cell of a query result; %s rows as a table\n", cell, table)
	}
	if len(c.hitIDs) > 0 {
		fmt.Fprintf(&b, "[[q:%s|exact words]] a verbatim quotation from a knowledge hit\n", c.hitIDs[0])
	}
	if g := seeExample(c); g != "" {
		fmt.Fprintf(&b, "[[see:%s]] the grounds of a claim, shown as nothing\n", g)
	}
	b.WriteString("Every sentence that states a finding (a change, a comparison, a ranking) must carry a marker.")
	return b.String()
}

// seeExample is what a see marker may name, from the catalog.
func seeExample(c *citable) string {
	var parts []string
	if len(c.mnames) > 0 {
		parts = append(parts, "m:"+c.mnames[0])
	}
	if len(c.snapIDs) > 0 {
		parts = append(parts, c.snapIDs[0])
	}
	if len(c.hitIDs) > 0 && len(parts) < 2 {
		parts = append(parts, c.hitIDs[0])
	}
	return strings.Join(parts, ",")
}

// snapshotExamples are the guide's examples of a cell and a table marker:
// from the first snapshot that has a row and a column a marker can name,
// so that the guide never shows a marker that does not resolve.
func snapshotExamples(c *citable) (cell, table string) {
	for _, id := range c.snapIDs {
		s := c.snaps[id]
		if len(s.Rows) == 0 {
			continue
		}
		var cols []string
		for _, col := range s.Columns {
			if cell == "" {
				cell = cellMarker(id, 0, col)
			}
			if len(cols) < 2 && tableColumn(id, col) {
				cols = append(cols, col)
			}
		}
		if cell != "" && len(cols) > 0 {
			return cell, fmt.Sprintf("[[table:%s cols=%s rows=0-%d]]", id, strings.Join(cols, ","), min(len(s.Rows), catalogMaxRows)-1)
		}
		cell = ""
	}
	return "", ""
}

// cellMarker is the marker of one cell, or "" when the column's name
// cannot be written in one (a name holding "]]"): the catalog offers a
// model only markers the checker reads back as that very cell.
func cellMarker(id string, row int, col string) string {
	m := fmt.Sprintf("[[v:%s.r%d.%s]]", id, row, col)
	segs, errs := marker.Parse(m)
	if len(errs) > 0 || len(segs) != 1 || segs[0].Marker == nil || segs[0].Marker.Col != col || segs[0].Marker.Snapshot != id {
		return ""
	}
	return m
}

// tableColumn reports whether col can be listed in a table marker's cols
// (a name with a space, a comma or "]]" cannot).
func tableColumn(id, col string) bool {
	segs, errs := marker.Parse(fmt.Sprintf("[[table:%s cols=%s rows=0-0]]", id, col))
	if len(errs) > 0 || len(segs) != 1 || segs[0].Marker == nil {
		return false
	}
	cols := segs[0].Marker.Cols
	return len(cols) == 1 && cols[0] == col
}
