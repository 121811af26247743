// Package marker parses the citation markers a report node's model writes
// (docs/evidence.md). The model never writes a number that passes as evidence: it
// writes markers, and the system fills the values in from sealed snapshots.
//
//	[[m:gmv]]  [[m:gmv|万]]                 a metric, optionally in a display unit
//	[[i:week]]                              a flow input
//	[[v:Q1.r0.gmv]]                         one cell of a query snapshot
//	[[table:Q1 cols=region,amount rows=0-4]] a table rendered from a snapshot
//	[[t:orders]]  [[c:orders.week]]         a table name, a column name
//	[[q:K1|exact words]]                    a verbatim quotation from a knowledge hit
//	[[see:m:gmv,Q1]]                        the grounds of a claim (not rendered)
//
// Where it fits: docs/architecture.md#evidence-and-issuance.
package marker

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind names a marker type by its prefix.
type Kind string

const (
	Metric   Kind = "m"
	Input    Kind = "i"
	Value    Kind = "v"
	Table    Kind = "table"
	TableRef Kind = "t"
	Column   Kind = "c"
	Quote    Kind = "q"
	See      Kind = "see"
)

// Marker is one parsed marker. Start and End are byte offsets of the whole
// `[[…]]` in the text.
type Marker struct {
	Kind  Kind
	Raw   string
	Start int
	End   int

	Name string // metric, input, table or column name (c: "table.column")
	Unit string // display unit of a metric marker: 万, 亿, k, M, B, %

	Snapshot string // Q1… or K1…
	Row      int    // v: row index
	Col      string // v: column name

	Cols    []string // table: columns (empty = all)
	RowFrom int      // table: first row
	RowTo   int      // table: last row, inclusive; -1 = to the end
	Words   string   // q: the quotation
	Grounds []string // see: the cited items, e.g. "m:gmv", "Q1"
}

// Error is an unparseable marker, positioned in the text.
type Error struct {
	Start, End int
	Raw        string
	Message    string
}

func (e Error) Error() string { return fmt.Sprintf("marker %q at %d: %s", e.Raw, e.Start, e.Message) }

// Segment is either plain text or a marker.
type Segment struct {
	Text   string
	Marker *Marker
	Start  int
}

// Units lists the display units a metric marker may ask for.
var Units = map[string]float64{"万": 1e4, "亿": 1e8, "千": 1e3, "k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "%": 0.01}

// Parse splits text into segments and reports every unparseable marker.
// It never fails as a whole: bad markers become errors and their text is
// kept as a plain segment so the caller can mark it.
func Parse(text string) ([]Segment, []Error) {
	var segs []Segment
	var errs []Error
	pos := 0
	for pos < len(text) {
		i := strings.Index(text[pos:], "[[")
		if i < 0 {
			segs = append(segs, Segment{Text: text[pos:], Start: pos})
			break
		}
		start := pos + i
		if start > pos {
			segs = append(segs, Segment{Text: text[pos:start], Start: pos})
		}
		j := strings.Index(text[start+2:], "]]")
		nextOpen := strings.Index(text[start+2:], "[[")
		if j < 0 || (nextOpen >= 0 && nextOpen < j) {
			end := len(text)
			if nextOpen >= 0 {
				end = start + 2 + nextOpen
			}
			errs = append(errs, Error{Start: start, End: end, Raw: text[start:end], Message: "marker is not closed with ]]"})
			segs = append(segs, Segment{Text: text[start:end], Start: start})
			pos = end
			continue
		}
		end := start + 2 + j + 2
		raw := text[start:end]
		m, err := parseOne(raw[2 : len(raw)-2])
		if err != "" {
			errs = append(errs, Error{Start: start, End: end, Raw: raw, Message: err})
			segs = append(segs, Segment{Text: raw, Start: start})
		} else {
			m.Raw, m.Start, m.End = raw, start, end
			segs = append(segs, Segment{Marker: m, Start: start})
		}
		pos = end
	}
	return segs, errs
}

func parseOne(body string) (*Marker, string) {
	kind, rest, ok := strings.Cut(body, ":")
	if !ok {
		return nil, "marker needs a kind prefix such as m:, v:, i:, table:, q:"
	}
	kind = strings.TrimSpace(kind)
	m := &Marker{Kind: Kind(kind)}
	switch m.Kind {
	case Metric:
		name, unit, hasUnit := strings.Cut(rest, "|")
		m.Name = strings.TrimSpace(name)
		if !isMetricName(m.Name) {
			return nil, fmt.Sprintf("metric name %q is not a name", m.Name)
		}
		if hasUnit {
			m.Unit = strings.TrimSpace(unit)
			if _, ok := Units[m.Unit]; !ok {
				return nil, fmt.Sprintf("unknown display unit %q (want one of 万 亿 千 k M B %%)", m.Unit)
			}
		}
	case Input:
		m.Name = strings.TrimSpace(rest)
		if !isName(m.Name) {
			return nil, fmt.Sprintf("input name %q is not a name", m.Name)
		}
	case Value:
		parts := strings.SplitN(strings.TrimSpace(rest), ".", 3)
		if len(parts) != 3 || !isSnapshot(parts[0], 'Q') || !strings.HasPrefix(parts[1], "r") {
			return nil, "cell marker must look like v:Q1.r0.column"
		}
		row, err := strconv.Atoi(parts[1][1:])
		if err != nil || row < 0 {
			return nil, fmt.Sprintf("row %q must be r followed by a row index", parts[1])
		}
		if parts[2] == "" {
			return nil, "cell marker needs a column name"
		}
		m.Snapshot, m.Row, m.Col = parts[0], row, parts[2]
	case Table:
		fields := strings.Fields(rest)
		if len(fields) == 0 || !isSnapshot(fields[0], 'Q') {
			return nil, "table marker must start with a snapshot id such as Q1"
		}
		m.Snapshot, m.RowFrom, m.RowTo = fields[0], 0, -1
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			switch {
			case ok && k == "cols":
				for _, c := range strings.Split(v, ",") {
					if c = strings.TrimSpace(c); c != "" {
						m.Cols = append(m.Cols, c)
					}
				}
			case ok && k == "rows":
				a, b, ok2 := strings.Cut(v, "-")
				from, err1 := strconv.Atoi(a)
				to, err2 := from, error(nil)
				if ok2 {
					to, err2 = strconv.Atoi(b)
				}
				if err1 != nil || err2 != nil || from < 0 || to < from {
					return nil, fmt.Sprintf("rows=%s must be a range like rows=0-4", v)
				}
				m.RowFrom, m.RowTo = from, to
			default:
				return nil, fmt.Sprintf("unknown table option %q (want cols=… or rows=…)", f)
			}
		}
	case TableRef:
		m.Name = strings.TrimSpace(rest)
		if !isName(m.Name) {
			return nil, fmt.Sprintf("table name %q is not a name", m.Name)
		}
	case Column:
		m.Name = strings.TrimSpace(rest)
		t, c, ok := strings.Cut(m.Name, ".")
		if !ok || !isName(t) || c == "" {
			return nil, "column marker must look like c:table.column"
		}
	case Quote:
		id, words, ok := strings.Cut(rest, "|")
		id = strings.TrimSpace(id)
		if !ok || !isSnapshot(id, 'K') {
			return nil, "quotation marker must look like q:K1|exact words"
		}
		if strings.TrimSpace(words) == "" {
			return nil, "quotation marker has no words"
		}
		m.Snapshot, m.Words = id, words
	case See:
		for _, g := range strings.Split(rest, ",") {
			if g = strings.TrimSpace(g); g != "" {
				m.Grounds = append(m.Grounds, g)
			}
		}
		if len(m.Grounds) == 0 {
			return nil, "see marker names no grounds"
		}
	default:
		return nil, fmt.Sprintf("unknown marker kind %q (want m, i, v, table, t, c, q or see)", kind)
	}
	return m, ""
}

// isMetricName accepts a metric's name, or name@N for the values a card's
// pinned version N computed next to the current one (on_card_upgrade:
// dual records them as gmv@1).
func isMetricName(s string) bool {
	name, ver, ok := strings.Cut(s, "@")
	if !ok {
		return isName(s)
	}
	if !isName(name) || ver == "" {
		return false
	}
	for _, r := range ver {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && (r >= '0' && r <= '9' || r == '-'))
		if !ok {
			return false
		}
	}
	return true
}

func isSnapshot(s string, prefix byte) bool {
	if len(s) < 2 || s[0] != prefix {
		return false
	}
	n, err := strconv.Atoi(s[1:])
	return err == nil && n >= 1
}
