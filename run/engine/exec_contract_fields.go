package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/evidence/marker"
	"github.com/agentlab/agentlab/issuance"
)

// contractText joins what an output contract reads: the report named by
// report_from as its model wrote it (source), then every field of the
// output, sorted by name. Every number that leaves the run through the
// output is therefore read, whatever the contract names: a model's text in
// a field is a narrative like any other, and a field holding a metric's
// value mentions that metric. Fields are rendered with every report
// node's text replaced by its source, so a report's markers stay markers
// (traced by construction) instead of the numbers the system filled in
// for them; a field that is exactly the report's source is not read twice.
// The parts say where each piece starts, for the reasons and the record.
//
// The markers are the spans of the joined text the checker takes as
// citation markers: the well-formed markers of a report's source, where
// that source stands whole (the report itself, or a field that carries
// it). Anything else that looks like a marker — written by a model into
// its answer, by a template, or given as an input — is filled by nothing,
// so it is read as the text it is.
func (t *task) contractText(reportFrom, source string) (string, []issuance.Part, []issuance.Part, error) {
	var b strings.Builder
	var parts []issuance.Part
	markers := []issuance.Part{}
	env, sources := t.markerEnv()
	if reportFrom != "" && source != "" && !slices.ContainsFunc(sources, func(r reportSource) bool { return r.source == source }) {
		sources = append(sources, reportSource{source: source})
	}
	add := func(name, text string) {
		if text == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		parts = append(parts, issuance.Part{Name: name, Start: b.Len(), End: b.Len() + len(text)})
		markers = append(markers, sourceMarkers(text, b.Len(), sources)...)
		b.WriteString(text)
	}
	if reportFrom != "" {
		add("report "+reportFrom, source)
	}
	fields := t.node.Map("fields")
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := fields[k]
		if src, ok := v.(string); ok {
			s, err := render(src, env)
			if err != nil {
				return "", nil, nil, fmt.Errorf("node %q: field %q: %v", t.id, k, err)
			}
			v = s
		}
		text := fieldText(v)
		if reportFrom != "" && text == source {
			continue
		}
		add("field "+k, text)
	}
	return b.String(), parts, markers, nil
}

// reportSource is a report's source and the text the system filled from
// it.
type reportSource struct{ source, filled string }

// sourceMarkers returns, offset by base, the spans of the well-formed
// markers of every report source that stands whole in text, except those
// the system could not fill: such a marker (under on_violation: mark) is
// left in the filled text as written, words and figures shown as the
// model wrote them, so it is read as text.
func sourceMarkers(text string, base int, sources []reportSource) []issuance.Part {
	var out []issuance.Part
	for _, rs := range sources {
		src := rs.source
		if src == "" || !strings.Contains(src, "[[") {
			continue
		}
		segs, _ := marker.Parse(src)
		for from := 0; ; {
			k := strings.Index(text[from:], src)
			if k < 0 {
				break
			}
			at := from + k
			for _, sg := range segs {
				if m := sg.Marker; m != nil && !strings.Contains(rs.filled, m.Raw) {
					out = append(out, issuance.Part{Name: "marker", Start: base + at + m.Start, End: base + at + m.End})
				}
			}
			from = at + len(src)
		}
	}
	return out
}

// markerEnv is the template environment with the text of every finished
// report node replaced by its source, markers in place, and those sources.
func (t *task) markerEnv() (map[string]any, []reportSource) {
	var sources []reportSource
	env := t.sc.env()
	nodes, _ := env["nodes"].(map[string]any)
	for id, out := range nodes {
		m, ok := out.(map[string]any)
		if !ok {
			continue
		}
		src, ok := m["source"].(string)
		if n := findNode(t.r.cfg.Plan, id); !ok || n == nil || n.Type != "report" {
			continue
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		filled, _ := m["text"].(string)
		c["text"] = src
		nodes[id] = c
		sources = append(sources, reportSource{source: src, filled: filled})
	}
	sort.Slice(sources, func(i, j int) bool { return sources[i].source < sources[j].source })
	return env, sources
}

// fieldText is the text the checker reads for one field's value: a string
// as it is, a number written out in full, and every key, string and number
// of a list or mapping (keys sorted), one per line.
func fieldText(v any) string {
	var lines []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x != "" {
				lines = append(lines, x)
			}
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lines = append(lines, strconv.FormatFloat(x, 'f', -1, 64))
			}
		case int:
			lines = append(lines, strconv.Itoa(x))
		case int64:
			lines = append(lines, strconv.FormatInt(x, 10))
		case json.Number:
			lines = append(lines, x.String())
		case uint64:
			lines = append(lines, strconv.FormatUint(x, 10))
		case int32:
			lines = append(lines, strconv.FormatInt(int64(x), 10))
		case uint32:
			lines = append(lines, strconv.FormatUint(uint64(x), 10))
		case float32:
			lines = append(lines, strconv.FormatFloat(float64(x), 'f', -1, 32))
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				// A key is shown as much as its value ({"9999999":
				// "gmv"} carries a figure too).
				lines = append(lines, k)
				walk(x[k])
			}
		}
	}
	walk(v)
	return strings.Join(lines, "\n")
}
