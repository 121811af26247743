package render

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html"
	"strconv"
	"strings"
)

//go:embed assets/report.css
var reportCSS string

//go:embed assets/report.js
var reportJS string

// ReportJS returns the script of report.html: the side panel, the safe
// arithmetic evaluator and the number formatting twins of calc.go and
// format.go. The bundle's verifier script builds on it.
func ReportJS() string { return reportJS }

// CSS returns the style sheet every report page carries.
func CSS() string { return reportCSS }

// Section markers around the readable report in report.html and
// bundle.html. Rendered text never contains them (every "<" is escaped), so
// the verifier can cut the report out of a file without parsing HTML.
const (
	BeginReport = "<!--al-report-->"
	EndReport   = "<!--/al-report-->"
)

// SnapshotPreviewRows is how many rows of each snapshot the evidence
// appendix shows; the side panel shows any row on demand.
const SnapshotPreviewRows = 20

// Page is an HTML page around a rendered report.
type Page struct {
	Title  string
	Before string // HTML before the report (the bundle's verdict)
	Body   []byte // Body(doc)
	Data   []byte // doc.Data()
	After  string // HTML after the data block (the bundle's evidence)
	Script string // the one inline script
}

// HTML renders report.html: one self-contained file that reads without
// scripts and, with scripts on, opens a side panel on every number, cell,
// name and quotation. The same evidence always gives the same bytes.
func HTML(doc *Doc) ([]byte, error) {
	data, err := doc.Data()
	if err != nil {
		return nil, err
	}
	return Assemble(Page{Title: doc.Title(), Body: Body(doc), Data: data, Script: reportJS}), nil
}

// Title is the page title of a report.
func (d *Doc) Title() string {
	if d.Meta.Flow != "" {
		return "Report: " + d.Meta.Flow
	}
	return "Report"
}

// CSP returns the Content-Security-Policy of a page whose only script is
// script: nothing may be fetched, only that exact inline script and the
// page's own style sheet apply — no style attribute, no other <style> —
// and images may only be data: URLs. An edit that restyles the page
// without touching the policy therefore has no effect.
func CSP(script string) string {
	return "default-src 'none'; script-src '" + sha256Source(script) +
		"'; style-src '" + sha256Source(reportCSS) + "'; img-src data:; base-uri 'none'; form-action 'none'"
}

// sha256Source is the CSP hash source of an inline block.
func sha256Source(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// Assemble writes a page.
func Assemble(p Page) []byte {
	return []byte(layout(escape(p.Title), html.EscapeString(CSP(p.Script)), p.Before, string(p.Body), string(p.Data), p.After, p.Script))
}

// PanelHTML is the empty side panel every page carries.
const PanelHTML = "<aside id=\"al-panel\" tabindex=\"-1\" aria-label=\"evidence\" hidden><button type=\"button\" id=\"al-close\" aria-label=\"close\">×</button><div id=\"al-panel-body\"></div></aside>\n"

// Layout slots: LayoutTemplate marks each slot with one of them, so that
// the bundle's verifier fills the very layout Assemble writes.
const (
	SlotTitle  = "\x00title\x00"
	SlotCSP    = "\x00csp\x00"
	SlotBefore = "\x00before\x00"
	SlotBody   = "\x00body\x00"
	SlotData   = "\x00data\x00"
	SlotAfter  = "\x00after\x00"
	SlotScript = "\x00script\x00"
)

// LayoutTemplate is the page Assemble writes with every slot left as its
// marker (title and policy HTML-escaped by the filler).
func LayoutTemplate() string {
	return layout(SlotTitle, SlotCSP, SlotBefore, SlotBody, SlotData, SlotAfter, SlotScript)
}

// layout is the whole page; title and csp come HTML-escaped.
func layout(title, csp, before, body, data, after, script string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"" + csp + "\">\n")
	b.WriteString("<meta name=\"referrer\" content=\"no-referrer\">\n")
	b.WriteString("<title>" + title + "</title>\n<style>" + reportCSS + "</style>\n</head>\n<body>\n")
	b.WriteString(before)
	b.WriteString(BeginReport)
	b.WriteString(body)
	b.WriteString(EndReport + "\n")
	b.WriteString(PanelHTML)
	b.WriteString("<script type=\"application/json\" id=\"al-data\">")
	b.WriteString(data)
	b.WriteString("</script>\n")
	b.WriteString(after)
	b.WriteString("<script>" + script + "</script>\n</body>\n</html>\n")
	return b.String()
}

// Body renders the readable report: the run's facts, every report node's
// narrative, the metric list and the evidence appendix. Every element that
// shows evidence carries data-k (and the attributes naming the item) so
// that the panel and the browser verifier can find its source.
func Body(d *Doc) []byte {
	w := &htmlWriter{}
	w.s("<main id=\"al-report\">\n<header>\n<h1 class=\"al-label\">")
	w.t(d.Title())
	w.s("</h1>\n<dl class=\"al-meta\">\n")
	for _, f := range []struct{ name, val string }{
		{"run", d.Meta.Run}, {"seal", d.Meta.Seal}, {"plan", d.Meta.Plan}, {"kind", d.Meta.Kind},
		{"tier", d.Meta.Tier}, {"status", d.Meta.Status}, {"head", d.Meta.Head},
	} {
		if f.val == "" {
			continue
		}
		w.s("<dt class=\"al-label\">" + f.name + "</dt><dd")
		w.a("data-k", "f")
		w.a("data-n", f.name)
		w.s(">")
		w.t(f.val)
		w.s("</dd>\n")
	}
	if len(d.Meta.TierReasons) > 0 {
		// docs/evidence.md: a run that is not formal declares why, next to its tier.
		w.s("<dt class=\"al-label\">tier reasons</dt><dd><ul class=\"al-reasons\">")
		for i, r := range d.Meta.TierReasons {
			w.s("<li")
			w.a("data-k", "tr")
			w.a("data-i", strconv.Itoa(i))
			w.s(">")
			w.t(r)
			w.s("</li>")
		}
		w.s("</ul></dd>\n")
	}
	if d.Meta.Head == "" {
		w.s("<dt class=\"al-label\">seal</dt><dd class=\"al-label al-bad\">not sealed: the run has no run.finished event</dd>\n")
	}
	w.s("</dl>\n</header>\n")

	w.s("<section class=\"al-narrative\">\n<h2 class=\"al-label\">Narrative</h2>\n")
	if len(d.Reports) == 0 {
		w.s("<p class=\"al-label\">This run has no report node.</p>\n")
	}
	for _, r := range d.Reports {
		w.s("<article><h3")
		w.a("data-k", "node")
		w.a("data-n", r.Node)
		w.s(">")
		w.t(r.Node)
		w.s("</h3>\n<div class=\"al-text\"")
		w.a("data-node", r.Node)
		w.s(">")
		for i := range r.Parts {
			w.part(d, r, &r.Parts[i])
		}
		w.s("</div>\n</article>\n")
	}
	w.s("</section>\n")

	w.runText(d) // runtext.go: outputs and model answers

	w.s("<section class=\"al-metrics\">\n<h2 class=\"al-label\">Metrics</h2>\n")
	if len(d.MetricSets) == 0 {
		w.s("<p class=\"al-label\">This run computed no metrics.</p>\n")
	}
	for _, ms := range d.MetricSets {
		w.s("<table class=\"al-table\"><caption")
		w.a("data-k", "node")
		w.a("data-n", ms.Node)
		w.s(">")
		w.t(ms.Node)
		w.s("</caption>\n<thead><tr><th class=\"al-label\">metric</th><th class=\"al-label\">value</th><th class=\"al-label\">formula</th></tr></thead>\n<tbody>\n")
		for _, mv := range ms.Set.Metrics {
			text, ok := FormatMetric(&mv, "")
			w.s("<tr><td")
			w.a("data-k", "mn")
			w.a("data-n", mv.Name)
			w.a("data-set", ms.Node)
			w.s(">")
			w.t(mv.Name)
			w.s("</td><td")
			cls := "al-ref al-num"
			if !ok {
				cls += " al-violation"
			}
			w.a("class", cls)
			w.a("tabindex", "0")
			w.a("data-k", "m")
			w.a("data-n", mv.Name)
			w.a("data-set", ms.Node)
			w.s(">")
			w.t(text)
			w.s("</td><td><code")
			w.a("data-k", "mf")
			w.a("data-n", mv.Name)
			w.a("data-set", ms.Node)
			w.s(">")
			w.t(mv.Formula)
			w.s("</code></td></tr>\n")
		}
		w.s("</tbody></table>\n")
	}
	w.s("</section>\n")

	w.s("<section class=\"al-evidence\">\n<h2 class=\"al-label\">Evidence</h2>\n")
	for _, s := range d.Snapshots {
		w.s("<h3")
		w.a("id", "al-"+s.ID)
		w.a("data-k", "sid")
		w.a("data-q", s.ID)
		w.s(">")
		w.t(s.ID)
		w.s("</h3>\n<p><span class=\"al-label\">source </span><code")
		w.a("class", "al-ref")
		w.a("tabindex", "0")
		w.a("data-k", "t")
		w.a("data-n", s.Snap.Source)
		w.s(">")
		w.t(s.Snap.Source)
		w.s("</code></p>\n<pre")
		w.a("data-k", "sql")
		w.a("data-q", s.ID)
		w.s(">")
		w.t(s.Snap.SQL)
		w.s("</pre>\n")
		n := min(len(s.Snap.Rows), SnapshotPreviewRows)
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		idx := make([]int, len(s.Snap.Columns))
		for j := range idx {
			idx[j] = j
		}
		w.table(s, &Table{Snapshot: s.ID, Cols: s.Snap.Columns, idx: idx, Rows: rows}, "", "")
		w.s("<p")
		w.a("class", "al-note")
		w.a("data-k", "rc")
		w.a("data-q", s.ID)
		w.s(">")
		w.t(RowCount(n, len(s.Snap.Rows), s.Snap.Truncated))
		w.s("</p>\n")
	}
	for _, h := range d.Hits {
		w.s("<h3")
		w.a("id", "al-"+h.ID)
		w.a("data-k", "sid")
		w.a("data-q", h.ID)
		w.s(">")
		w.t(h.ID)
		w.s("</h3>\n<p")
		w.a("data-k", "kp")
		w.a("data-q", h.ID)
		w.s(">")
		w.t(h.Hit.Path)
		w.s("</p>\n<blockquote")
		w.a("data-k", "kt")
		w.a("data-q", h.ID)
		w.s(">")
		w.t(h.Hit.Text)
		w.s("</blockquote>\n")
	}
	if len(d.Snapshots)+len(d.Hits) == 0 {
		w.s("<p class=\"al-label\">This run recorded no evidence.</p>\n")
	}
	w.s("</section>\n</main>\n")
	return w.b.Bytes()
}

// RowCount is the note under a snapshot preview.
func RowCount(shown, total int, truncated bool) string {
	s := strconv.Itoa(shown) + " of " + strconv.Itoa(total) + " rows shown"
	if truncated {
		s += "; the query result was truncated at the row cap"
	}
	return s
}

type htmlWriter struct{ b bytes.Buffer }

func (w *htmlWriter) s(s string) { w.b.WriteString(s) }
func (w *htmlWriter) t(s string) { w.b.WriteString(escape(s)) }
func (w *htmlWriter) a(k, v string) {
	w.b.WriteString(" " + k + "=\"" + escape(v) + "\"")
}

// escape is html.EscapeString that also writes CR as &#13;: the HTML
// parser turns a raw CR (and CR LF) into LF, so without it the page would
// not hold the text the evidence gives, and the browser verifier, which
// reads the parsed page, could not tell.
func escape(s string) string {
	return strings.ReplaceAll(html.EscapeString(s), "\r", "&#13;")
}

func (w *htmlWriter) part(d *Doc, r *Report, p *Part) {
	if p.Mark != "" {
		w.s("<mark class=\"al-violation\"")
		w.a("title", p.Mark)
		w.s(">")
		defer w.s("</mark>")
	}
	switch p.Kind {
	case PartText:
		w.s("<span data-k=\"s\"")
		w.a("data-a", strconv.Itoa(p.Start))
		w.a("data-b", strconv.Itoa(p.End))
		w.s(">")
		w.t(p.Text)
		w.s("</span>")
	case PartTable:
		if s := d.Snapshot(p.Snapshot); s != nil {
			w.table(s, p.Table, strconv.Itoa(p.Start), strconv.Itoa(p.End))
		}
	default:
		tag := map[string]string{PartMetric: "span", PartInput: "span", PartCell: "span", PartTable1: "code", PartColumn: "code", PartQuote: "q"}[p.Kind]
		cls := "al-ref"
		if p.Kind == PartMetric || p.Kind == PartCell {
			cls += " al-num"
		}
		if p.Masked {
			cls += " al-masked"
		}
		if p.Null {
			cls += " al-null"
		}
		w.s("<" + tag)
		w.a("class", cls)
		w.a("tabindex", "0")
		w.a("data-k", p.Kind)
		w.a("data-a", strconv.Itoa(p.Start))
		w.a("data-b", strconv.Itoa(p.End))
		switch p.Kind {
		case PartMetric:
			w.a("data-n", p.Name)
			w.a("data-set", p.Set)
			if p.Unit != "" {
				w.a("data-u", p.Unit)
			}
		case PartCell:
			w.a("data-q", p.Snapshot)
			w.a("data-r", strconv.Itoa(p.Row))
			w.a("data-c", p.Col)
		case PartQuote:
			w.a("data-q", p.Snapshot)
		default:
			w.a("data-n", p.Name)
		}
		w.s(">")
		w.t(p.Text)
		w.s("</" + tag + ">")
	}
}

// table renders rows of a snapshot; a and b are the source span of the
// table marker ("" in the evidence appendix).
func (w *htmlWriter) table(s *Snapshot, t *Table, a, b string) {
	w.s("<table class=\"al-table\"")
	w.a("data-k", "table")
	if a != "" {
		w.a("data-a", a)
		w.a("data-b", b)
	}
	w.a("data-q", s.ID)
	w.s("><thead><tr>")
	for _, c := range t.Cols {
		w.s("<th")
		w.a("class", "al-ref")
		w.a("tabindex", "0")
		w.a("data-k", "h")
		w.a("data-q", s.ID)
		w.a("data-c", c)
		w.s(">")
		w.t(c)
		w.s("</th>")
	}
	w.s("</tr></thead><tbody>")
	for _, i := range t.Rows {
		w.s("<tr>")
		for k, j := range t.idx {
			v := s.Snap.Rows[i][j]
			cls := "al-ref"
			if _, isStr := v.(string); !isStr && v != nil {
				cls += " al-num"
			}
			if isMasked(s.Snap, t.Cols[k], v) {
				cls += " al-masked"
			}
			if v == nil {
				cls += " al-null"
			}
			w.s("<td")
			w.a("class", cls)
			w.a("tabindex", "0")
			w.a("data-k", "v")
			w.a("data-q", s.ID)
			w.a("data-r", strconv.Itoa(i))
			w.a("data-c", t.Cols[k])
			w.s(">")
			w.t(FormatCell(v))
			w.s("</td>")
		}
		w.s("</tr>")
	}
	w.s("</tbody></table>")
}
