package verify

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// seeReport puts see markers everywhere the spaces around them matter:
// before ASCII and CJK punctuation, between words, next to each other,
// next to rendered markers, at a line end and at the end of the text.
const seeReport = "GMV was [[m:gmv]] [[see:m:gmv,Q1]]. Rose [[see:Q1]] sharply [[see:Q1]] [[see:m:gmv]], " +
	"then 销售额增长 [[see:m:gmv]]。 Costs [[ see : Q1 ]][[see:Q1]]!\n" +
	"Next [[see:Q1]][[m:north_share]] line [[see:Q1]]\n(north [[see:Q1]]) leads\t[[see:Q1]]"

// seeShown is what the report shows of seeReport (markers filled).
const seeShown = "GMV was 2,800.00 CNY. Rose sharply, then 销售额增长。 Costs!\nNext 42.9% line\n(north) leads"

// seeBundle writes the bundle of a fixture run whose report is seeReport.
func seeBundle(t *testing.T) ([]byte, *evfixture.Run) {
	t.Helper()
	r := fixtureRun(t, evfixture.Options{Report: seeReport})
	var buf bytes.Buffer
	if err := WriteBundle(&buf, r.Dir, BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), r
}

// TestSeeMarkerSpacesVerify: the report drops the spaces a see marker
// would strand, and both verifiers — Go and the bundle's own script —
// accept exactly those gaps in the shown source.
func TestSeeMarkerSpacesVerify(t *testing.T) {
	b, r := seeBundle(t)
	res, err := VerifyBundle(b, Options{Expect: r.Seal})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("Go does not verify the bundle: %v", failing(res.Checks))
	}
	p := writeTemp(t, "bundle.html", b)
	br := openBundle(t, p)
	if !br.OK {
		t.Fatalf("the browser does not verify the bundle: %v", failing(br.Checks))
	}
	got := reportText(t, b)
	if got != seeShown {
		t.Errorf("the report shows\n%q\nwant\n%q", got, seeShown)
	}
}

// TestSeeGapTampered: a shown text part cut short so that a space the rule
// keeps (before a rendered marker) is missing fails the browser's report
// check, as does a space shown where the rule drops it.
func TestSeeGapTampered(t *testing.T) {
	b, _ := seeBundle(t)
	browser(t)
	for _, tm := range []struct{ name, old, new string }{
		// "Next " keeps its space: a metric follows the see marker.
		{"kept space hidden", "data-a=\"154\" data-b=\"161\">!\nNext </span>", "data-a=\"154\" data-b=\"160\">!\nNext</span>"},
		// "Rose" lost its space: showing it again is not the rendering.
		{"dropped space shown", `data-a="34" data-b="40">. Rose</span>`, `data-a="34" data-b="41">. Rose </span>`},
	} {
		if !bytes.Contains(b, []byte(tm.old)) {
			t.Fatalf("%s: %q not in the bundle", tm.name, tm.old)
		}
		p := writeTemp(t, "bundle.html", inReport(t, b, tm.old, tm.new))
		br := openBundle(t, p)
		if br.OK {
			t.Errorf("%s: the browser verifies the tampered bundle", tm.name)
			continue
		}
		if bad := failing(br.Checks); !strings.Contains(bad[CheckReport], "are not shown") {
			t.Errorf("%s: failing %v, want %s saying bytes are not shown", tm.name, bad, CheckReport)
		}
	}
}

// reportText returns the text of the bundle's report box, tags removed
// and entities of the fixture's text decoded.
func reportText(t *testing.T, b []byte) string {
	t.Helper()
	i := bytes.Index(b, []byte(`<div class="al-text"`))
	if i < 0 {
		t.Fatal("no report text in the bundle")
	}
	j := bytes.Index(b[i:], []byte("</div>"))
	s := string(b[i : i+j])
	var out strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			out.WriteRune(r)
		}
	}
	return out.String()
}
