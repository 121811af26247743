package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestRunTextShowsOutputsAndAnswers holds the section a person reads for
// what the run returned and what each model said: every output once, by
// name, escaped; every answer under its node, in order, escaped; the
// data-k/data-n/data-i hooks the verifiers re-fill from the sealed events.
func TestRunTextShowsOutputsAndAnswers(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	doc.Outputs = map[string]any{"total": 2800.5, "note": "a<b & c"}
	doc.Texts = []NodeText{{Node: "writer", Text: "GMV was <b>2800</b>"}, {Node: "checker", Text: "ok"}}
	want := `<section class="al-run">
<h2 class="al-label">Outputs</h2>
<dl class="al-outputs">
<dt data-k="on" data-n="note">note</dt><dd class="al-text" data-k="o" data-n="note">a&lt;b &amp; c</dd>
<dt data-k="on" data-n="total">total</dt><dd class="al-text" data-k="o" data-n="total">2800.5</dd>
</dl>
<h2 class="al-label">Model answers</h2>
<article><h3 data-k="node" data-n="writer">writer</h3>
<div class="al-text al-answer" data-k="x" data-i="0">GMV was &lt;b&gt;2800&lt;/b&gt;</div>
</article>
<article><h3 data-k="node" data-n="checker">checker</h3>
<div class="al-text al-answer" data-k="x" data-i="1">ok</div>
</article>
</section>`
	if got := runSection(t, Body(doc)); got != want {
		t.Errorf("run section:\n%s\nwant\n%s", got, want)
	}
	doc.Outputs, doc.Texts = nil, nil
	if got := runSection(t, Body(doc)); got != "<section class=\"al-run\">\n<h2 class=\"al-label\">Outputs</h2>\n<p class=\"al-label\">This run returned no outputs.</p>\n</section>" {
		t.Errorf("a run without outputs:\n%s", got)
	}
}

func runSection(t *testing.T, b []byte) string {
	t.Helper()
	i := bytes.Index(b, []byte(`<section class="al-run">`))
	if i < 0 {
		t.Fatal("no run section")
	}
	j := bytes.Index(b[i:], []byte("</section>"))
	return string(b[i : i+j+len("</section>")])
}

// TestDataCarriesOutputsAndInputs: the evidence block the browser checks
// holds the run's outputs (an empty object when there are none, never
// null) and the inputs the run was started with.
func TestDataCarriesOutputsAndInputs(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	if doc.Inputs["week"] != "2026-W47" {
		t.Errorf("inputs %v; want the sealed inputs artifact read", doc.Inputs)
	}
	data, err := doc.Data()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"outputs":{}`)) || !bytes.Contains(data, []byte(`"texts":[]`)) {
		t.Errorf("a run without outputs: %s", clipData(data))
	}
	doc.Outputs = map[string]any{"total": 1}
	if data, _ = doc.Data(); !bytes.Contains(data, []byte(`"outputs":{"total":1}`)) {
		t.Errorf("outputs dropped from the data: %s", clipData(data))
	}
}

func clipData(b []byte) string {
	if i := bytes.Index(b, []byte(`"outputs"`)); i >= 0 {
		return string(b[i:min(len(b), i+80)])
	}
	return "no outputs key"
}

// TestMarkersAtTheEdgesOfASnapshot: a value in the first column resolves;
// a table from the row just past the last is reported, not shown empty.
func TestMarkersAtTheEdgesOfASnapshot(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{Report: "Leader: [[v:Q1.r0.region]]. [[table:Q1 cols=region rows=5-6]]"})
	var texts []string
	for _, p := range doc.Reports[0].Parts {
		texts = append(texts, p.Kind+"="+p.Text+"|"+p.Mark)
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "=north|") {
		t.Errorf("[[v:Q1.r0.region]] did not resolve to north:\n%s", all)
	}
	if !strings.Contains(strings.Join(doc.Problems, "\n"), "none from row 5") {
		t.Errorf("a table from row 5 of 5 rows is not reported: %q", doc.Problems)
	}
}

// TestMarkerInsideARecordedViolationIsMarked: a marker the report node
// recorded as a violation is shown with the violation's reason; an empty
// violation at the same place covers nothing.
func TestMarkerInsideARecordedViolationIsMarked(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	r := doc.Reports[0]
	at := strings.Index(r.Art.Source, "[[m:north_share]]")
	end := at + len("[[m:north_share]]")
	r.Art.Violations = []evidence.Violation{{Start: at, End: at, Kind: "empty"}, {Start: at - 1, End: end + 1, Kind: "wrong_metric", Message: "a share cited as a total"}}
	parts := doc.resolve(r)
	found := false
	for _, p := range parts {
		if p.Start == at && p.Mark == "wrong_metric: a share cited as a total" {
			found = true
		}
		if strings.HasPrefix(p.Mark, "empty") {
			t.Errorf("an empty violation marks %q", p.Text)
		}
	}
	if !found {
		t.Errorf("the marker inside the violation is not marked: %+v", parts)
	}
}

// TestCalcDeepUnaryWithinTheLimit: forty signs in a row are forty levels,
// inside the formula depth limit; the count must come back down after
// each, or a long but legal formula is refused.
func TestCalcDeepUnaryWithinTheLimit(t *testing.T) {
	v, err := Calc(strings.Repeat("- ", 40) + "1 + " + strings.Repeat("-", 30) + "2")
	if err != nil || v != 3 {
		t.Fatalf("Calc = %v, %v; want 3", v, err)
	}
}

// TestFormatMetricDecimalsOutOfRange: a metric card asking for more
// decimals than a float64 holds is shown with the default, not padded
// with digits that were never measured.
func TestFormatMetricDecimalsOutOfRange(t *testing.T) {
	v, d := 1.5, 21
	got, ok := FormatMetric(&evidence.MetricValue{Name: "x", Value: &v, Decimals: &d}, "")
	if !ok || strings.Count(got, "0") > 3 {
		t.Errorf("FormatMetric with 21 decimals = %q", got)
	}
	d = 20
	if got, _ := FormatMetric(&evidence.MetricValue{Name: "x", Value: &v, Decimals: &d}, ""); got != "1."+"5"+strings.Repeat("0", 19) {
		t.Errorf("FormatMetric with 20 decimals = %q", got)
	}
}

// TestInputsFromTheSealedArtifact: a run.started that names its inputs
// only by hash (as runs record them) has them read from the artifact, and
// an artifact whose bytes do not hash to that name is not read.
func TestInputsFromTheSealedArtifact(t *testing.T) {
	_, events, get := fixtureDoc(t, evfixture.Options{})
	started := events[0]
	var data map[string]any
	if err := json.Unmarshal(started.Data, &data); err != nil {
		t.Fatal(err)
	}
	delete(data, "inputs")
	b, _ := json.Marshal(data)
	evs := append([]chain.Event{}, events...)
	evs[0].Data = b
	doc, err := LoadRun("fixture-run", evs, get)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Inputs["week"] != "2026-W47" {
		t.Errorf("inputs %v; want them read from the inputs artifact", doc.Inputs)
	}
	forged := func(id hashid.ID) ([]byte, error) {
		if id.String() == data["inputs_hash"] {
			return []byte(`{"week":"2026-W48"}`), nil
		}
		return get(id)
	}
	if doc, err = LoadRun("fixture-run", evs, forged); err != nil {
		t.Fatal(err)
	}
	if doc.Inputs["week"] == "2026-W48" {
		t.Error("inputs read from an artifact whose bytes do not hash to its name")
	}
}
