package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/marker"
)

// Part kinds: the data-k attribute of the element that shows the part.
const (
	PartText   = "s"     // plain source text, bytes Start..End of the report source
	PartMetric = "m"     // a metric value
	PartInput  = "i"     // an input value
	PartCell   = "v"     // one snapshot cell
	PartTable  = "table" // a table of snapshot cells
	PartTable1 = "t"     // a table name
	PartColumn = "c"     // a column name
	PartQuote  = "q"     // a verbatim quotation
)

// MaxTableRows caps the rows one table marker renders, so that a marker
// such as rows=0-999999999 cannot blow a report up.
const MaxTableRows = 1000

// Part is one piece of a rendered report text.
type Part struct {
	Kind       string
	Text       string // what the report shows
	Start, End int    // the source bytes the part comes from
	Name       string // metric, input, table or column name
	Set        string // metric: the node of the metric set
	Unit       string // metric display unit
	Snapshot   string // Q… or K…
	Row        int
	Col        string
	Masked     bool
	Null       bool
	// Mark is non-empty when the part is a violation, the sentence why.
	Mark  string
	Table *Table
}

// Table is a table marker resolved against its snapshot.
type Table struct {
	Snapshot string
	Cols     []string
	idx      []int
	Rows     []int
}

// resolve splits a report's source into parts, fills every marker from the
// evidence and marks violations: those the report node recorded
// (on_violation: mark), unparseable markers and markers that do not
// resolve.
func (d *Doc) resolve(r *Report) []Part {
	src := r.Art.Source
	segs, errs := marker.Parse(src)
	bad := map[int]string{}
	for _, e := range errs {
		bad[e.Start] = e.Message
	}
	names := d.nameSet() // names.go
	var parts []Part
	// The spaces a dropped see marker would strand are not shown; their
	// bytes, like the marker's, are a gap verify.js accepts (seeGapOK).
	for _, sg := range marker.TrimSee(segs) {
		if sg.Marker == nil {
			end := sg.Start + len(sg.Text)
			if msg, ok := bad[sg.Start]; ok {
				parts = append(parts, Part{Kind: PartText, Text: sg.Text, Start: sg.Start, End: end, Mark: msg})
				d.Problems = append(d.Problems, fmt.Sprintf("report %s: %s: %s", r.Node, sg.Text, msg))
				continue
			}
			vs := r.Art.Violations
			if un := d.unknownNames(r, names, sg.Text, sg.Start); len(un) > 0 {
				vs = append(append([]evidence.Violation(nil), vs...), un...)
			}
			parts = append(parts, splitText(src, sg.Start, end, vs)...)
			continue
		}
		p := d.fill(sg.Marker, names)
		if p.Kind == "" { // see: markers are not rendered
			continue
		}
		if p.Mark != "" {
			d.Problems = append(d.Problems, fmt.Sprintf("report %s: %s: %s", r.Node, sg.Marker.Raw, p.Mark))
		} else if v := covering(r.Art.Violations, sg.Marker.Start, sg.Marker.End); v != nil {
			p.Mark = violationText(v)
		}
		parts = append(parts, p)
	}
	return parts
}

func violationText(v *evidence.Violation) string {
	if v.Message != "" {
		return v.Kind + ": " + v.Message
	}
	return v.Kind
}

func covering(vs []evidence.Violation, start, end int) *evidence.Violation {
	for i := range vs {
		if vs[i].Start <= start && vs[i].End >= end && vs[i].End > vs[i].Start {
			return &vs[i]
		}
	}
	return nil
}

// splitText cuts the text src[start:end] at the edges of the recorded
// violations, so that each violating span becomes a part of its own. Spans
// that do not fall on UTF-8 boundaries inside the text are ignored.
func splitText(src string, start, end int, vs []evidence.Violation) []Part {
	type span struct {
		a, b int
		msg  string
	}
	var spans []span
	for i := range vs {
		a, b := max(vs[i].Start, start), min(vs[i].End, end)
		if a >= b || !boundary(src, a) || !boundary(src, b) {
			continue
		}
		spans = append(spans, span{a, b, violationText(&vs[i])})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var parts []Part
	pos := start
	for _, s := range spans {
		if s.a < pos { // overlaps an earlier one
			continue
		}
		if s.a > pos {
			parts = append(parts, Part{Kind: PartText, Text: src[pos:s.a], Start: pos, End: s.a})
		}
		parts = append(parts, Part{Kind: PartText, Text: src[s.a:s.b], Start: s.a, End: s.b, Mark: s.msg})
		pos = s.b
	}
	if pos < end {
		parts = append(parts, Part{Kind: PartText, Text: src[pos:end], Start: pos, End: end})
	}
	return parts
}

func boundary(s string, i int) bool {
	return i == 0 || i == len(s) || (i > 0 && i < len(s) && s[i]&0xC0 != 0x80)
}

// fill resolves one marker.
func (d *Doc) fill(m *marker.Marker, names *evidence.Names) Part {
	p := Part{Start: m.Start, End: m.End, Text: m.Raw}
	unresolved := func(format string, args ...any) Part {
		p.Kind, p.Text, p.Mark = PartText, m.Raw, "unresolved: "+fmt.Sprintf(format, args...)
		return p
	}
	switch m.Kind {
	case marker.See:
		return Part{}
	case marker.Metric:
		mv, set := d.Metric(m.Name)
		if mv == nil {
			return unresolved("no metric %q in the run's metric sets", m.Name)
		}
		text, ok := FormatMetric(mv, m.Unit)
		p.Kind, p.Name, p.Set, p.Unit, p.Text = PartMetric, m.Name, set, m.Unit, text
		if !ok {
			p.Mark = fmt.Sprintf("metric %q has no value: %s", m.Name, mv.Error)
		}
	case marker.Input:
		v, ok := d.Inputs[m.Name]
		if !ok {
			return unresolved("no input %q", m.Name)
		}
		p.Kind, p.Name, p.Text = PartInput, m.Name, FormatInput(v)
	case marker.Value:
		s := d.Snapshot(m.Snapshot)
		if s == nil {
			return unresolved("no snapshot %s", m.Snapshot)
		}
		j := colIndex(s.Snap, m.Col)
		if j < 0 {
			return unresolved("snapshot %s has no column %q", m.Snapshot, m.Col)
		}
		if m.Row >= len(s.Snap.Rows) {
			return unresolved("snapshot %s has %d rows, no row %d", m.Snapshot, len(s.Snap.Rows), m.Row)
		}
		v := s.Snap.Rows[m.Row][j]
		p.Kind, p.Snapshot, p.Row, p.Col, p.Text = PartCell, m.Snapshot, m.Row, m.Col, FormatCell(v)
		p.Masked, p.Null = isMasked(s.Snap, m.Col, v), v == nil
	case marker.Table:
		s := d.Snapshot(m.Snapshot)
		if s == nil {
			return unresolved("no snapshot %s", m.Snapshot)
		}
		t := &Table{Snapshot: m.Snapshot}
		cols := m.Cols
		if len(cols) == 0 {
			cols = s.Snap.Columns
		}
		for _, c := range cols {
			j := colIndex(s.Snap, c)
			if j < 0 {
				return unresolved("snapshot %s has no column %q", m.Snapshot, c)
			}
			t.Cols, t.idx = append(t.Cols, c), append(t.idx, j)
		}
		to := m.RowTo
		if to < 0 || to >= len(s.Snap.Rows) {
			to = len(s.Snap.Rows) - 1
		}
		if m.RowFrom >= len(s.Snap.Rows) && len(s.Snap.Rows) > 0 {
			return unresolved("snapshot %s has %d rows, none from row %d", m.Snapshot, len(s.Snap.Rows), m.RowFrom)
		}
		for i := m.RowFrom; i <= to && len(t.Rows) < MaxTableRows; i++ {
			t.Rows = append(t.Rows, i)
		}
		p.Kind, p.Snapshot, p.Table, p.Text = PartTable, m.Snapshot, t, ""
	case marker.TableRef:
		p.Kind, p.Name, p.Text = PartTable1, m.Name, m.Name
		p.Mark = names.Table(m.Name)
	case marker.Column:
		p.Kind, p.Name, p.Text = PartColumn, m.Name, m.Name
		p.Mark = names.Column(m.Name)
	case marker.Quote:
		h := d.Hit(m.Snapshot)
		if h == nil {
			return unresolved("no knowledge hit %s", m.Snapshot)
		}
		p.Kind, p.Snapshot, p.Text = PartQuote, m.Snapshot, m.Words
		if !strings.Contains(h.Hit.Text, m.Words) {
			p.Mark = fmt.Sprintf("the quotation does not appear verbatim in %s", m.Snapshot)
		}
	default:
		return unresolved("unknown marker kind")
	}
	return p
}

func colIndex(s *evidence.Snapshot, c string) int {
	for j, x := range s.Columns {
		if x == c {
			return j
		}
	}
	return -1
}

func isMasked(s *evidence.Snapshot, col string, v any) bool {
	for _, m := range s.Masked {
		if m == col {
			return v == evidence.MaskedValue
		}
	}
	return false
}
