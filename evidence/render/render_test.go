package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureDoc loads the evidence fixture run.
func fixtureDoc(t *testing.T, o evfixture.Options) (*Doc, []chain.Event, func(hashid.ID) ([]byte, error)) {
	t.Helper()
	dir := t.TempDir()
	r, err := evfixture.Build(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := runlog.OpenReadOnly(dir, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenFileStore(runlog.ArtifactsDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	get := func(id hashid.ID) ([]byte, error) { return st.Get(id) }
	doc, err := LoadRun(r.ID, snap.Events, get)
	if err != nil {
		t.Fatal(err)
	}
	return doc, snap.Events, get
}

func TestReportGolden(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	got, err := HTML(doc)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "fixture.report.html")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("report.html differs from %s (run with -update after checking the change)", golden)
	}
}

// TestReportDeterministic: post-seal events change nothing, and the same
// evidence renders to the same bytes however often it is rendered.
func TestReportDeterministic(t *testing.T) {
	a, _, _ := fixtureDoc(t, evfixture.Options{})
	b, _, _ := fixtureDoc(t, evfixture.Options{PostSeal: true})
	ha, _ := HTML(a)
	hb, _ := HTML(b)
	if !bytes.Equal(ha, hb) {
		t.Fatal("an event after the seal changed the report")
	}
	if bytes.Contains(ha, []byte("<script>alert")) {
		t.Fatal("data markup reached the page unescaped")
	}
}

func TestReportContent(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	body := string(Body(doc))
	for _, want := range []string{
		`data-k="i" data-a="17" data-b="27" data-n="week">2026-W47</span>`,
		`data-n="gmv" data-set="kpi">2,800.00 CNY</span>`,
		`data-n="gmv" data-set="kpi" data-u="万">0.28万</span>`,
		`data-n="north_share" data-set="kpi">42.9%</span>`,
		`class="al-ref al-masked" tabindex="0" data-k="v"`,
		`<mark class="al-violation" title="bare_number: a number without a marker"><span data-k="s"`,
		`&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;`,
		`&lt;script&gt;alert(1)&lt;/script&gt;`,
		`<q class="al-ref" tabindex="0" data-k="q"`,
		`>5 of 5 rows shown<`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s", want)
		}
	}
	if strings.Contains(body, "[[see:") {
		t.Error("a see: marker was rendered")
	}
	if len(doc.Problems) != 0 {
		t.Errorf("problems: %v", doc.Problems)
	}
	data, _ := doc.Data()
	if bytes.Contains(data, []byte("</script")) || bytes.Contains(data, []byte("<")) {
		t.Error("the data block can close its <script> element")
	}
}

// TestUnresolvedMarkers renders markers that name missing evidence: they
// are shown marked with the reason, never dropped and never fatal.
func TestUnresolvedMarkers(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	r := &Report{Node: "x", Art: evidence.ReportArtifact{Source: "[[m:nope]] [[v:Q9.r0.a]] [[v:Q1.r99.amount]] [[v:Q1.r0.nope]] [[i:nope]] [[q:K1|not there]] [[t:orders]] [[c:sales.nope]] [[table:Q1 cols=zzz]] [[q:K7|x]] [[bad]] [[m:gmv"}}
	parts := doc.resolve(r)
	marked := 0
	for _, p := range parts {
		if p.Mark != "" {
			marked++
		}
	}
	if marked != 12 {
		for _, p := range parts {
			t.Logf("%q %q", p.Text, p.Mark)
		}
		t.Fatalf("%d marked parts, want 12", marked)
	}
}

func TestTableRowCap(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	s := doc.Snapshot("Q1")
	for i := 0; i < 3000; i++ {
		s.Snap.Rows = append(s.Snap.Rows, []any{"r", float64(i), evidence.MaskedValue})
	}
	parts := doc.resolve(&Report{Node: "x", Art: evidence.ReportArtifact{Source: "[[table:Q1 rows=0-999999999]]"}})
	if len(parts) != 1 || parts[0].Table == nil || len(parts[0].Table.Rows) != MaxTableRows {
		t.Fatalf("table rows not capped: %+v", parts)
	}
}

func TestFormatMetric(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	d := func(n int) *int { return &n }
	cases := []struct {
		mv   evidence.MetricValue
		unit string
		want string
	}{
		{evidence.MetricValue{Value: v(2800)}, "", "2,800"},
		{evidence.MetricValue{Value: v(2800.5)}, "", "2,800.50"},
		{evidence.MetricValue{Value: v(1234567.891), Unit: "CNY"}, "", "1,234,567.89 CNY"},
		{evidence.MetricValue{Value: v(0.0875), Format: "percent"}, "", "8.8%"},
		{evidence.MetricValue{Value: v(0.0875), Format: "percent", Decimals: d(2)}, "", "8.75%"},
		{evidence.MetricValue{Value: v(35000)}, "万", "3.50万"},
		{evidence.MetricValue{Value: v(35900), Unit: "CNY", Decimals: d(0)}, "万", "3.59万"},
		{evidence.MetricValue{Value: v(1172100), Decimals: d(0)}, "k", "1,172.10k"},
		{evidence.MetricValue{Value: v(0.35216), Format: "percent", Decimals: d(2)}, "%", "35.22%"},
		{evidence.MetricValue{Value: v(123456789)}, "亿", "1.23亿"},
		{evidence.MetricValue{Value: v(0.123)}, "%", "12.3%"},
		// A metric already in percent points (or per-mille) is not multiplied again.
		{evidence.MetricValue{Value: v(8.7), Unit: "%"}, "%", "8.7%"},
		{evidence.MetricValue{Value: v(12.34), Unit: "%", Decimals: d(2)}, "%", "12.34%"},
		{evidence.MetricValue{Value: v(87), Unit: "‰"}, "%", "8.7%"},
		{evidence.MetricValue{Value: v(8.7), Unit: "%"}, "", "8.70 %"},
		{evidence.MetricValue{Value: v(-1500)}, "k", "-1.50k"},
		{evidence.MetricValue{}, "", "n/a"},
	}
	for _, c := range cases {
		if got, _ := FormatMetric(&c.mv, c.unit); got != c.want {
			t.Errorf("FormatMetric(%v, %q) = %q, want %q", c.mv.Value, c.unit, got, c.want)
		}
	}
}
