package engine

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/marker"
	erender "github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/issuance"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/retrieve"
)

// citable is the evidence a report node may cite: the metrics of its
// upstream metrics nodes, the run's snapshots and knowledge hits, the
// flow's inputs, and the table and column names of those snapshots.
type citable struct {
	metrics map[string]*evidence.MetricValue
	mnames  []string // sorted
	snaps   map[string]*evidence.Snapshot
	snapIDs []string // ledger order
	hits    map[string]evidence.KnowledgeHit
	hitIDs  []string
	inputs  map[string]any
	names   *evidence.Names // built from snaps on first use (report_names.go)
	// recordedBy names the node that recorded a snapshot of the run the
	// report may not cite ("" when the run has none by that id), so that
	// the reason says why (report_cite_scope.go).
	recordedBy func(id string) string
}

func (c *citable) metricList() []issuance.Metric {
	out := make([]issuance.Metric, 0, len(c.mnames))
	for _, name := range c.mnames {
		mv := c.metrics[name]
		if mv.Value == nil {
			continue
		}
		out = append(out, issuance.Metric{Name: name, Value: *mv.Value, Unit: mv.Unit, Decimals: mv.Decimals, Format: mv.Format})
	}
	return out
}

// Violation kinds (evidence.Violation.Kind).
const (
	vBareNumber   = "bare_number"
	vBadMarker    = "bad_marker"
	vUnresolved   = "unresolved"
	vUncitedClaim = "uncited_claim"
	vUnsupported  = "unsupported"
	vUnknownName  = "unknown_name"
)

// checkReport finds everything wrong with a report text: unparseable
// markers, markers that do not resolve against the evidence, bare numbers
// (under numbers: lenient a bare number the issuance reader traces to
// exactly one visible metric is allowed), and, with claims:
// require_citation, conclusion sentences without a marker. Violations
// are sorted by position.
func checkReport(text string, c *citable, strict, requireCitation bool) ([]evidence.Violation, []evidence.Claim) {
	var vs []evidence.Violation
	segs, errs := marker.Parse(text)
	for _, e := range errs {
		vs = append(vs, evidence.Violation{Start: e.Start, End: e.End, Kind: vBadMarker, Text: e.Raw, Message: e.Message})
	}
	for _, sg := range segs {
		if sg.Marker == nil {
			continue
		}
		if msg := c.resolve(sg.Marker); msg != "" {
			m := sg.Marker
			vs = append(vs, evidence.Violation{Start: m.Start, End: m.End, Kind: vUnresolved, Text: m.Raw, Message: msg})
		}
	}
	vs = append(vs, c.unknownNames(segs)...) // report_names.go
	var res issuance.Result
	if strict {
		res = issuance.Check(text, nil, issuance.Options{})
	} else {
		res = issuance.Check(text, c.metricList(), issuance.Options{})
	}
	for _, n := range res.Numbers {
		if n.Ignored != nil || n.Matched != nil || insideBad(errs, n.Start) {
			continue
		}
		msg := bareNumberMessage(c)
		if len(n.Ambiguous) > 0 {
			msg = "the number fits several metrics (" + strings.Join(n.Ambiguous, ", ") + "); cite the one meant, e.g. [[m:" + n.Ambiguous[0] + "]]"
		}
		vs = append(vs, evidence.Violation{Start: n.Start, End: n.End, Kind: vBareNumber, Text: n.Text, Message: msg})
	}
	var claims []evidence.Claim
	for _, s := range sentences(text) {
		if !s.conclusion {
			continue
		}
		claims = append(claims, evidence.Claim{Start: s.start, End: s.end, Cited: s.cited})
		if requireCitation && !s.cited {
			vs = append(vs, evidence.Violation{Start: s.start, End: s.end, Kind: vUncitedClaim, Text: text[s.start:s.end],
				Message: uncitedClaimMessage(c)})
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Start < vs[j].Start })
	return vs, claims
}

// bareNumberMessage says how to cite a number written in the text, with
// markers of this report's own evidence, never a placeholder.
func bareNumberMessage(c *citable) string {
	var ex []string
	if len(c.mnames) > 0 {
		ex = append(ex, "[[m:"+c.mnames[0]+"]]")
	}
	if cell, _ := snapshotExamples(c); cell != "" {
		ex = append(ex, cell) // one that resolves, as the catalog offers it
	}
	if len(ex) == 0 {
		return "a number written in the text, and this report has no metric or query result to fill it from; remove it, or compute it upstream (a query or a metric) so that it can be cited"
	}
	return "a number written in the text; cite it with a marker such as " + strings.Join(ex, " or ") + " so the system fills it in"
}

// uncitedClaimMessage says how to cite a conclusion, with a marker of this
// report's own evidence.
func uncitedClaimMessage(c *citable) string {
	if g := seeExample(c); g != "" {
		return "a conclusion without a citation; add the marker of the evidence it rests on, e.g. [[see:" + g + "]]"
	}
	return "a conclusion without a citation, and this report has no evidence to cite; state it as an open question, or query the data it rests on upstream"
}

func insideBad(errs []marker.Error, pos int) bool {
	for _, e := range errs {
		if pos >= e.Start && pos < e.End {
			return true
		}
	}
	return false
}

// resolve says why a marker cannot be filled from the evidence ("" when
// it can).
func (c *citable) resolve(m *marker.Marker) string {
	switch m.Kind {
	case marker.Metric:
		mv, ok := c.metrics[m.Name]
		if !ok {
			return fmt.Sprintf("there is no metric %q; the metrics are: %s", m.Name, listOrNone(c.mnames))
		}
		if mv.Value == nil {
			return fmt.Sprintf("metric %q has no value", m.Name)
		}
	case marker.Input:
		if _, ok := c.inputs[m.Name]; !ok {
			return fmt.Sprintf("there is no input %q", m.Name)
		}
	case marker.Value:
		s, ok := c.snaps[m.Snapshot]
		if !ok {
			return c.noSnapshot(m.Snapshot)
		}
		if m.Row >= len(s.Rows) {
			return fmt.Sprintf("snapshot %s has %d rows; row %d does not exist", m.Snapshot, len(s.Rows), m.Row)
		}
		if colIndex(s, m.Col) < 0 {
			return fmt.Sprintf("snapshot %s has no column %q; its columns are: %s", m.Snapshot, m.Col, strings.Join(s.Columns, ", "))
		}
	case marker.Table:
		s, ok := c.snaps[m.Snapshot]
		if !ok {
			return c.noSnapshot(m.Snapshot)
		}
		for _, col := range m.Cols {
			if colIndex(s, col) < 0 {
				return fmt.Sprintf("snapshot %s has no column %q; its columns are: %s", m.Snapshot, col, strings.Join(s.Columns, ", "))
			}
		}
		if m.RowFrom >= len(s.Rows) && len(s.Rows) > 0 || m.RowTo >= len(s.Rows) {
			return fmt.Sprintf("snapshot %s has %d rows; rows=%d-%d is out of range", m.Snapshot, len(s.Rows), m.RowFrom, m.RowTo)
		}
	case marker.TableRef:
		return c.nameSet().Table(m.Name)
	case marker.Column:
		return c.nameSet().Column(m.Name)
	case marker.Quote:
		h, ok := c.hits[m.Snapshot]
		if !ok {
			return fmt.Sprintf("there is no knowledge hit %s; the hits are: %s", m.Snapshot, listOrNone(c.hitIDs))
		}
		if !retrieve.Quote(h.Text, m.Words) {
			return fmt.Sprintf("the quotation does not appear verbatim in %s (%s); quote its exact words", m.Snapshot, h.Path)
		}
	case marker.See:
		for _, g := range m.Grounds {
			switch {
			case strings.HasPrefix(g, "m:"):
				if _, ok := c.metrics[g[2:]]; !ok {
					return fmt.Sprintf("there is no metric %q", g[2:])
				}
			case strings.HasPrefix(g, "Q"):
				if _, ok := c.snaps[g]; !ok {
					return fmt.Sprintf("there is no snapshot %s", g)
				}
			case strings.HasPrefix(g, "K"):
				if _, ok := c.hits[g]; !ok {
					return fmt.Sprintf("there is no knowledge hit %s", g)
				}
			case strings.HasPrefix(g, "i:"):
				if _, ok := c.inputs[g[2:]]; !ok {
					return fmt.Sprintf("there is no input %q", g[2:])
				}
			default:
				return fmt.Sprintf("ground %q is not m:NAME, i:NAME, Q… or K…", g)
			}
		}
	}
	return ""
}

func colIndex(s *evidence.Snapshot, col string) int {
	for i, c := range s.Columns {
		if c == col {
			return i
		}
	}
	return -1
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// fill writes the report as plain text: every marker replaced by its
// value, formatted exactly as the HTML report shows it (package
// evidence/render), see: markers dropped, unresolvable markers kept as
// written.
func fill(text string, c *citable) string {
	segs, _ := marker.Parse(text)
	for i, sg := range segs {
		if m := sg.Marker; m != nil && m.Kind == marker.See && c.resolve(m) != "" {
			// kept as written below: text, not a marker that goes away
			segs[i] = marker.Segment{Text: m.Raw, Start: sg.Start}
		}
	}
	segs = marker.TrimSee(segs) // no space left stranded before punctuation
	var b strings.Builder
	for _, sg := range segs {
		if sg.Marker == nil {
			b.WriteString(sg.Text)
			continue
		}
		m := sg.Marker
		if c.resolve(m) != "" {
			b.WriteString(m.Raw)
			continue
		}
		switch m.Kind {
		case marker.Metric:
			s, _ := erender.FormatMetric(c.metrics[m.Name], m.Unit)
			b.WriteString(s)
		case marker.Input:
			b.WriteString(erender.FormatInput(c.inputs[m.Name]))
		case marker.Value:
			s := c.snaps[m.Snapshot]
			b.WriteString(erender.FormatCell(s.Rows[m.Row][colIndex(s, m.Col)]))
		case marker.Table:
			b.WriteString(textTable(c.snaps[m.Snapshot], m))
		case marker.TableRef, marker.Column:
			b.WriteString(m.Name)
		case marker.Quote:
			b.WriteString("\u201c" + strings.TrimSpace(m.Words) + "\u201d")
		}
	}
	return b.String()
}

// textTable renders a table marker as pipe-separated lines.
func textTable(s *evidence.Snapshot, m *marker.Marker) string {
	cols := m.Cols
	if len(cols) == 0 {
		cols = s.Columns
	}
	to := m.RowTo
	if to < 0 || to >= len(s.Rows) {
		to = len(s.Rows) - 1
	}
	to = min(to, m.RowFrom+erender.MaxTableRows-1)
	var b strings.Builder
	b.WriteString(strings.Join(cols, " | "))
	for r := m.RowFrom; r <= to; r++ {
		b.WriteByte('\n')
		for j, col := range cols {
			if j > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(erender.FormatCell(s.Rows[r][colIndex(s, col)]))
		}
	}
	return b.String()
}

// sentence is one sentence of a report, by byte offsets.
type sentence struct {
	start, end int
	cited      bool // holds a marker
	conclusion bool
}

// trendWords mark a sentence as a conclusion: it asserts a change, a
// comparison or a ranking, which must rest on cited evidence.
var trendWords = []string{
	"increase", "decrease", "grew", "grow", "growth", "rose", "rise", "fell", "fall", "drop", "declin",
	"higher", "lower", "more than", "less than", "fewer", "up ", "down ", "outperform", "underperform",
	"best", "worst", "largest", "smallest", "highest", "lowest", "doubled", "halved", "exceed", "surge", "plunge",
	"增长", "下降", "上升", "减少", "增加", "提高", "降低", "高于", "低于", "超过", "不足", "翻倍", "最高", "最低", "同比", "环比",
}

// sentences splits a report into sentences and classifies them. A
// sentence ends at . ! ? 。！？ (followed by a space, a line break or the
// end) or at a line break. It is cited when it holds a marker. It is a
// conclusion when it is not a heading (a line starting with #), does not
// end with a colon (a transition into a list or table), and either holds
// a quantity outside markers (a number the issuance reader does not
// ignore as a date, ordinal or quarter) or a trend or comparison word (grew, fell,
// higher than, 增长, 同比…). Everything else — greetings, transitions,
// statements about the report itself — needs no citation.
func sentences(text string) []sentence {
	var out []sentence
	segs, _ := marker.Parse(text)
	inMarker := make([]bool, len(text)+1)
	for _, sg := range segs {
		if sg.Marker != nil {
			for i := sg.Marker.Start; i < sg.Marker.End; i++ {
				inMarker[i] = true
			}
		}
	}
	start := 0
	flush := func(end int) {
		s, e := start, end
		for s < e && (text[s] == ' ' || text[s] == '\n' || text[s] == '\t' || text[s] == '\r') {
			s++
		}
		for e > s && (text[e-1] == ' ' || text[e-1] == '\n' || text[e-1] == '\t' || text[e-1] == '\r') {
			e--
		}
		start = end
		if s >= e {
			return
		}
		out = append(out, classify(text, s, e, inMarker))
	}
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		next := i + w
		if inMarker[i] {
			i = next
			continue
		}
		switch {
		case r == '\n':
			flush(next)
		case r == '。' || r == '！' || r == '？':
			flush(next)
		case r == '.' || r == '!' || r == '?':
			if next >= len(text) || text[next] == ' ' || text[next] == '\n' {
				flush(next)
			}
		}
		i = next
	}
	flush(len(text))
	return out
}

func classify(text string, s, e int, inMarker []bool) sentence {
	st := sentence{start: s, end: e}
	for i := s; i < e; i++ {
		if inMarker[i] {
			st.cited = true
			break
		}
	}
	body := text[s:e]
	trimmed := strings.TrimRight(body, " ")
	if strings.HasPrefix(body, "#") || strings.HasSuffix(trimmed, ":") || strings.HasSuffix(trimmed, "：") {
		return st
	}
	plain := stripMarkers(text, s, e, inMarker)
	digit := false
	for _, n := range issuance.Read(plain) {
		if n.Ignored == nil {
			digit = true
			break
		}
	}
	lower := strings.ToLower(plain) + " "
	trend := false
	for _, w := range trendWords {
		if strings.Contains(lower, w) {
			trend = true
			break
		}
	}
	st.conclusion = digit || trend
	return st
}

func stripMarkers(text string, s, e int, inMarker []bool) string {
	var b strings.Builder
	for i := s; i < e; i++ {
		if !inMarker[i] {
			b.WriteByte(text[i])
		}
	}
	return b.String()
}

// describe lists violations for the repair request, one per line.
func describeViolations(text string, vs []evidence.Violation) string {
	var b strings.Builder
	for i, v := range vs {
		if i == 20 {
			fmt.Fprintf(&b, "- … and %d more\n", len(vs)-20)
			break
		}
		fmt.Fprintf(&b, "- %s at byte %d: %q: %s\n", v.Kind, v.Start, clip(v.Text, 80), v.Message)
	}
	return b.String()
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// metricFromDef builds the display record of a metric from its plan
// definition and value (when the metric set itself is not at hand, e.g.
// after a resume).
func metricFromDef(name string, d plan.Metric, v float64) *evidence.MetricValue {
	val := v
	return &evidence.MetricValue{Name: name, Value: &val, Unit: d.Unit, Decimals: d.Decimals, Format: d.Format, Formula: d.Expr}
}
