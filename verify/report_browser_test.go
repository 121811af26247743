package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// reportHTML renders the fixture's report.html and returns its path.
func reportHTML(t *testing.T) string {
	t.Helper()
	r := fixtureRun(t, evfixture.Options{})
	rd, err := readRunDir(r.Dir, "", 1<<30, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := render.LoadRun(r.ID, rd.events, func(id hashid.ID) ([]byte, error) { return getFile(rd.artifacts, id, 1<<30) })
	if err != nil {
		t.Fatal(err)
	}
	b, err := render.HTML(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportPanelInBrowser opens report.html from disk, clicks the GMV
// number and a cell, and reads the side panel: the formula, the
// substituted formula and its recomputed value, the SQL, the cited rows
// with the cell highlighted, and masked values shown as masked. It also
// checks that the hostile strings in the data stayed text.
func TestReportPanelInBrowser(t *testing.T) {
	ctx := browser(t)
	p := reportHTML(t)
	tab, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+p)); err != nil {
		t.Fatal(err)
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return s
	}
	click := func(sel string) {
		t.Helper()
		eval(`document.getElementById("al-close").click(); ""`)
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
		if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS("#al-panel"))); err != nil {
			t.Fatal(err)
		}
	}
	panel := func() string { return eval(`document.getElementById("al-panel-body").textContent`) }

	if got := eval(`String(document.querySelectorAll("#al-report script, #al-report img, #al-report iframe").length) + "/" + String(typeof window.alertCalled)`); got != "0/undefined" {
		t.Fatalf("markup from the data became elements: %s", got)
	}
	if got := eval(`document.querySelector('.al-text').textContent`); !strings.Contains(got, "<script>alert('x')</script>") {
		t.Fatalf("the narrative lost its escaped markup: %q", got)
	}

	click(`.al-text [data-k="m"][data-n="gmv"]:not([data-u])`)
	text := panel()
	for _, want := range []string{"Metric gmv (weekly-gmv@2)", "sum(col(nodes.pull, 'amount'))", "sum([1200.5, 800, 450.25, 300, 49.25])",
		"2,800.00 CNY = recorded value 2,800.00 CNY", "SELECT region, amount, customer FROM sales", "customer (masked)", "Sealed at event 14"} {
		if !strings.Contains(text, want) {
			t.Errorf("metric panel lacks %q:\n%s", want, text)
		}
	}
	if got := eval(`Array.from(document.querySelectorAll("#al-panel td.al-hl-cell")).map(function(e){return e.textContent}).join(",")`); got != "1200.5,800,450.25,300,49.25" {
		t.Errorf("highlighted cells of gmv: %q", got)
	}

	click(`.al-text [data-k="v"][data-c="amount"]`)
	text = panel()
	if !strings.Contains(text, "Cell Q1 row 0 column amount") || !strings.Contains(text, "ORDER BY amount DESC") {
		t.Errorf("cell panel:\n%s", text)
	}
	if got := eval(`Array.from(document.querySelectorAll("#al-panel tr.al-hl-row td.al-hl-cell")).map(function(e){return e.textContent}).join(",")`); got != "1200.5" {
		t.Errorf("highlighted cell: %q", got)
	}
	if got := eval(`String(document.querySelectorAll("#al-panel tr").length - 1)`); got != "3" {
		t.Errorf("rows around row 0: %s, want 3 (rows 0-2)", got)
	}

	click(`.al-text [data-k="v"][data-c="customer"]`)
	if text = panel(); !strings.Contains(text, "masked at the source") {
		t.Errorf("masked cell panel:\n%s", text)
	}
	if got := eval(`document.querySelector("#al-panel td.al-hl-cell").className`); !strings.Contains(got, "al-masked") {
		t.Errorf("masked cell class %q", got)
	}

	// a DOM click: chromedp's mouse click does not settle on a <q> element
	eval(`document.getElementById("al-close").click(); document.querySelector('.al-text [data-k="q"]').click(); ""`)
	if got := eval(`document.querySelector("#al-panel blockquote mark").textContent`); got != "the north region leads" {
		t.Errorf("quotation highlight %q", got)
	}
	if got := eval(`String(document.querySelectorAll("#al-report script, #al-panel script").length)`); got != "0" {
		t.Fatalf("the panel created script elements: %s", got)
	}
}

// TestBrowserVerifiesTierReasons: a bundle whose contract is degraded shows
// the reasons, and both verifiers accept it untouched and refuse it when a
// reason is edited.
func TestBrowserVerifiesTierReasons(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{Contract: true})
	var buf strings.Builder
	if err := WriteBundle(&buf, r.Dir, BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	b := []byte(buf.String())
	if res, err := VerifyBundle(b, Options{Expect: r.Seal}); err != nil || !res.OK {
		t.Fatalf("Go verifier: %v %+v", err, res)
	}
	const shown = `data-i="1">required metric &#34;orders&#34; is not in the metric set</li>`
	if !strings.Contains(buf.String(), shown) {
		t.Fatal("the bundle does not show the tier reasons")
	}
	if v := openBundle(t, writeTemp(t, "bundle.html", b)); !v.OK {
		for _, c := range v.Checks {
			t.Logf("%-10s %v %s", c.Name, c.OK, c.Detail)
		}
		t.Fatalf("the browser does not verify the degraded bundle (status %s)", v.Status)
	}
	bad := []byte(strings.Replace(buf.String(), shown, `data-i="1">nothing is missing</li>`, 1))
	if res, err := VerifyBundle(bad, Options{Expect: r.Seal}); err == nil && res.OK {
		t.Error("Go verifier accepts an edited tier reason")
	}
	if v := openBundle(t, writeTemp(t, "bad.html", bad)); v.OK {
		t.Error("the browser accepts an edited tier reason")
	}
}
