package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/issuance"
)

// The verdicts of runs evidence, one per number.
const (
	numSourced    = "sourced"     // traced to one metric, snapshot cell or input, or written by a marker
	numSuspicious = "suspicious"  // fits several sources, or is close to one but outside its rounding
	numNoEvidence = "no_evidence" // nothing sealed holds it
	numIgnored    = "ignored"     // not a quantity: a date, an ordinal, a version…
)

// nearMiss is how close (relative) an untraced number must be to a sealed
// value to be suspicious rather than without evidence: 8.8% written for a
// metric of 8.7% is a misquote to look at, 42 beside a revenue of 1,172,100
// is not.
const nearMiss = 0.05

// numberRow is one number of a run's outputs or reports and its trail.
type numberRow struct {
	Where  string `json:"where"` // "output brief", "output items[0].total", "report brief"
	Text   string `json:"text"`
	Start  int    `json:"start"` // byte offsets into the field's text (the report's source for a marker)
	End    int    `json:"end"`
	Status string `json:"status"`
	Trail  string `json:"trail"`
}

func newRunsEvidenceCmd(dir, format *string) *cobra.Command {
	return &cobra.Command{
		Use:   "evidence [RUN]",
		Short: "Every number of a run's outputs and reports: sourced, suspicious or without evidence",
		Long: `List every number of a sealed run's outputs and reports with its verdict and
its trail:

  sourced      traced to exactly one metric (its card, formula and metric set
               artifact), a sealed snapshot cell, an input, or written by a
               citation marker the system filled in
  suspicious   fits several metrics, or lies within 5% of a sealed value
               without matching it (a misquote to look at)
  no_evidence  no metric, snapshot cell or input holds it
  ignored      not a quantity (a date, an ordinal, a version…), with why

Numbers are read by the issuance checker (the rules are in
docs/issuance.md) from the outputs run.finished seals and from the report
nodes' artifacts. The view reads only the sealed events and artifacts, and
exits 0 whatever it finds. RUN defaults to the latest run and may be a
unique prefix of a run id.

--format json prints {"run":…,"numbers":[{"where","text","start","end",
"status","trail"}…],"counts":{…}}; --format csv the numbers as CSV with a
header row.

Examples:
  agentlab runs evidence
  agentlab runs evidence 2026 --format csv > numbers.csv`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(*format, "text", "json", "csv"); err != nil {
				return err
			}
			s, err := openPickedSealed(*dir, args)
			if err != nil {
				return err
			}
			d, err := s.doc()
			if err != nil {
				return err
			}
			return writeNumbers(cmd.OutOrStdout(), s.ID, runNumbers(d), *format)
		},
	}
}

// openPickedSealed opens the sealed run args names (the latest when none).
func openPickedSealed(dir string, args []string) (*sealedRun, error) {
	d := dataDir(dir)
	arg := ""
	if len(args) > 0 {
		arg = args[0]
	}
	id, err := pickRun(d, arg)
	if err != nil {
		return nil, err
	}
	return openSealed(d, id)
}

// runNumbers reads every number of the run's outputs (in field order) and
// of its report nodes: the text the model wrote and the citation markers
// the system filled in.
func runNumbers(d *render.Doc) []numberRow {
	src := newSources(d)
	var rows []numberRow
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case string:
			// An output is sealed with its report's markers filled in, so
			// a "[[…]]" left in it is text a model or a template wrote,
			// not a marker: its figures are listed like any other.
			res := issuance.Check(x, src.metrics, issuance.Options{Markers: noMarkers})
			for _, n := range res.Numbers {
				rows = append(rows, src.judge(where, n))
			}
		case float64:
			t := strconv.FormatFloat(x, 'f', -1, 64)
			n := issuance.Number{Text: t, End: len(t), Value: &x}
			if res := issuance.Check(t, src.metrics, issuance.Options{}); len(res.Numbers) == 1 {
				n = res.Numbers[0] // its tolerance and match
			}
			rows = append(rows, src.judge(where, n))
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(where+"."+k, x[k])
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", where, i), e)
			}
		}
	}
	keys := make([]string, 0, len(d.Outputs))
	for k := range d.Outputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		walk("output "+k, d.Outputs[k])
	}
	for _, r := range d.Reports {
		for _, p := range r.Parts {
			if p.Kind == render.PartText {
				// The text the model wrote between markers: its numbers
				// are judged like an output's, at offsets into the source.
				for _, n := range issuance.Check(p.Text, src.metrics, issuance.Options{Markers: noMarkers}).Numbers {
					n.Start, n.End = n.Start+p.Start, n.End+p.Start
					rows = append(rows, src.judge("report "+r.Node, n))
				}
				continue
			}
			if t := markerTrail(d, &p); t != "" {
				rows = append(rows, numberRow{Where: "report " + r.Node, Text: p.Text, Start: p.Start, End: p.End, Status: numSourced, Trail: t})
			}
		}
	}
	return rows
}

// noMarkers reads a text in which no "[[…]]" is a marker the system fills.
var noMarkers = []issuance.Part{}

// markerTrail is the trail of a marker part that shows a number, "" for
// any other part (text, names, quotes, tables, unresolved markers).
func markerTrail(d *render.Doc, p *render.Part) string {
	if p.Mark != "" || p.Null || p.Masked {
		return ""
	}
	shows := false // the filled-in text holds a quantity (not a name, a date…)
	for _, n := range issuance.Check(p.Text, nil, issuance.Options{}).Numbers {
		shows = shows || n.Ignored == nil
	}
	if !shows {
		return ""
	}
	switch p.Kind {
	case render.PartMetric:
		if m, set := d.Metric(p.Name); m != nil {
			return "marker: " + metricTrail(m, set, d)
		}
	case render.PartInput:
		return "marker: input " + p.Name
	case render.PartCell:
		return "marker: " + cellTrail(d, p.Snapshot, p.Row, p.Col)
	}
	return ""
}

// numberSources are the sealed values a number may come from.
type numberSources struct {
	d       *render.Doc
	metrics []issuance.Metric
	values  []sealedValue // metric values, numeric cells and inputs, for near misses and cells
}

type sealedValue struct {
	v     float64
	trail string
}

func newSources(d *render.Doc) *numberSources {
	s := &numberSources{d: d}
	seen := map[string]bool{}
	for i := len(d.MetricSets) - 1; i >= 0; i-- { // a later set shadows an earlier one, as in Doc.Metric
		for _, m := range d.MetricSets[i].Set.Metrics {
			if m.Value == nil || seen[m.Name] {
				continue
			}
			seen[m.Name] = true
			s.metrics = append(s.metrics, issuance.Metric{Name: m.Name, Value: *m.Value, Unit: m.Unit, Decimals: m.Decimals, Format: m.Format})
		}
	}
	sort.Slice(s.metrics, func(i, j int) bool { return s.metrics[i].Name < s.metrics[j].Name })
	for _, m := range s.metrics {
		mv, set := d.Metric(m.Name)
		v := m.Value
		if m.Format == "" && m.Unit == "%" {
			v /= 100
		}
		s.values = append(s.values, sealedValue{v, metricTrail(mv, set, d)})
	}
	for _, sn := range d.Snapshots {
		for r, row := range sn.Snap.Rows {
			for c, cell := range row {
				if f, ok := numeric(cell); ok && c < len(sn.Snap.Columns) {
					s.values = append(s.values, sealedValue{f, cellTrail(d, sn.ID, r, sn.Snap.Columns[c])})
				}
			}
		}
	}
	for _, k := range sortedKeys(d.Inputs) {
		if f, ok := numeric(d.Inputs[k]); ok {
			s.values = append(s.values, sealedValue{f, "input " + k})
		}
	}
	return s
}

// judge gives one number its verdict and trail.
func (s *numberSources) judge(where string, n issuance.Number) numberRow {
	row := numberRow{Where: where, Text: n.Text, Start: n.Start, End: n.End}
	switch {
	case n.Ignored != nil:
		row.Status, row.Trail = numIgnored, *n.Ignored
		return row
	case n.Matched != nil:
		mv, set := s.d.Metric(*n.Matched)
		row.Status, row.Trail = numSourced, metricTrail(mv, set, s.d)
		return row
	case len(n.Ambiguous) > 0:
		row.Status, row.Trail = numSuspicious, "fits several metrics: "+strings.Join(n.Ambiguous, ", ")
		return row
	case n.Value == nil && n.Interval != nil:
		// An approximate number ("两千余") the checker did not trace to a
		// metric is never sourced by a cell or input that merely lies
		// inside it.
		for _, sv := range s.values {
			if sv.v >= n.Interval[0] && sv.v <= n.Interval[1] {
				row.Status, row.Trail = numSuspicious, "approximate: "+sv.trail+" lies in it"
				return row
			}
		}
		row.Status, row.Trail = numNoEvidence, "approximate, and no metric, snapshot cell or input lies in it"
		return row
	case n.Value == nil:
		row.Status, row.Trail = numNoEvidence, "no metric, snapshot cell or input holds it"
		return row
	}
	v := *n.Value
	tol := n.Tolerance
	for _, sv := range s.values {
		if math.Abs(sv.v-v) <= tol || (!n.Signed && math.Abs(sv.v+v) <= tol) {
			row.Status, row.Trail = numSourced, sv.trail
			return row
		}
	}
	best, bestRel := "", math.Inf(1)
	for _, sv := range s.values {
		if sv.v == 0 {
			continue
		}
		rel := math.Abs(math.Abs(v)-math.Abs(sv.v)) / math.Abs(sv.v)
		if rel < bestRel {
			best, bestRel = sv.trail, rel
		}
	}
	if bestRel <= nearMiss {
		row.Status, row.Trail = numSuspicious, fmt.Sprintf("off by %.2g%% from %s", bestRel*100, best)
		return row
	}
	row.Status, row.Trail = numNoEvidence, "no metric, snapshot cell or input holds it"
	return row
}

// metricTrail names a metric's value, card, formula and metric set.
func metricTrail(m *evidence.MetricValue, set string, d *render.Doc) string {
	if m == nil {
		return "metric (not in any metric set)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "metric %s", m.Name)
	if m.Value != nil {
		fmt.Fprintf(&b, " = %s", strconv.FormatFloat(*m.Value, 'f', -1, 64))
	}
	if m.Card != "" {
		fmt.Fprintf(&b, " (card %s)", m.Card)
	}
	fmt.Fprintf(&b, " of node %s", set)
	for _, ms := range d.MetricSets {
		if ms.Node == set {
			fmt.Fprintf(&b, ", artifact %s", ms.Artifact)
		}
	}
	if m.Formula != "" {
		fmt.Fprintf(&b, ", formula %s", m.Formula)
	}
	return b.String()
}

// cellTrail names a snapshot cell: Q1 row 2 column revenue of node month.
func cellTrail(d *render.Doc, snap string, row int, col string) string {
	t := fmt.Sprintf("%s row %d column %s", snap, row, col)
	if s := d.Snapshot(snap); s != nil {
		t += fmt.Sprintf(" of node %s, artifact %s", s.Snap.Node, s.Artifact)
	}
	return t
}

// numeric is a JSON or snapshot value as a number, when it is one.
func numeric(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func writeNumbers(w io.Writer, run string, rows []numberRow, format string) error {
	counts := map[string]int{numSourced: 0, numSuspicious: 0, numNoEvidence: 0, numIgnored: 0}
	for _, r := range rows {
		counts[r.Status]++
	}
	switch format {
	case "json":
		if rows == nil {
			rows = []numberRow{}
		}
		return writeJSON(w, map[string]any{"run": run, "numbers": rows, "counts": counts})
	case "csv":
		c := csv.NewWriter(w)
		_ = c.Write([]string{"where", "text", "start", "end", "status", "trail"})
		for _, r := range rows {
			_ = c.Write([]string{r.Where, r.Text, strconv.Itoa(r.Start), strconv.Itoa(r.End), r.Status, r.Trail})
		}
		c.Flush()
		return c.Error()
	}
	fmt.Fprintf(w, "run %s: %d sourced, %d suspicious, %d without evidence, %d ignored\n",
		run, counts[numSourced], counts[numSuspicious], counts[numNoEvidence], counts[numIgnored])
	if len(rows) == 0 {
		return nil
	}
	t := newTable(w)
	t.Header("where", "number", "status", "trail")
	for _, r := range rows {
		t.Append(r.Where, r.Text, r.Status, r.Trail)
	}
	return t.Render()
}
