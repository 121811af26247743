package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// page opens path in the shared browser, waits for the bundle's verdict
// (or the report's script), and returns an evaluator.
func page(t *testing.T, path string, width int64) (context.Context, func(js string) string) {
	t.Helper()
	tab, cancel := context.WithTimeout(browser(t), 30*time.Second)
	t.Cleanup(cancel)
	if width > 0 {
		// a focused page (as a person's would be), so :focus matches and keys arrive
		focus := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
			return err
		})
		if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 800), focus); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = chromedp.Do(browser(t), chromedp.EmulateReset()) })
	}
	abs, _ := filepath.Abs(path)
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tab, chromedp.Poll[chromedp.Void](`window.ALResult!==undefined || (typeof AL_LAYOUT==="undefined" && typeof AL!=="undefined" && document.readyState==="complete")`, chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		t.Fatal(err)
	}
	return tab, func(js string) string {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return s
	}
}

const panelText = `document.getElementById("al-panel").hidden ? "" : document.getElementById("al-panel-body").textContent`

// TestBundlePanelChecksWhatIsShown: in the verified bundle the panel of a
// number compares the text on the page with what the evidence gives,
// formats numbers as the report does, shows the SQL with its bound
// parameters, and works for inputs and table names.
func TestBundlePanelChecksWhatIsShown(t *testing.T) {
	b, _ := fixtureBundle(t)
	_, eval := page(t, writeTemp(t, "bundle.html", b), 0)
	if eval(`String(window.ALResult.ok)`) != "true" {
		t.Fatal("the untouched bundle does not verify")
	}
	open := func(sel string) string {
		t.Helper()
		return eval(`document.getElementById("al-close").click(); document.querySelector('` + sel + `').click(); ` + panelText)
	}
	text := open(`.al-text [data-k="m"][data-n="gmv"]:not([data-u])`)
	for _, want := range []string{"The page shows “2,800.00 CNY”: the value the evidence gives.", "2,800.00 CNY = recorded value 2,800.00 CNY",
		":week = 2026-W47", "verified: the artifact re-hashes to its id"} {
		if !strings.Contains(text, want) {
			t.Errorf("metric panel lacks %q:\n%s", want, text)
		}
	}
	text = open(`.al-text [data-k="m"][data-n="north_share"]`)
	if !strings.Contains(text, "42.9% = recorded value 42.9%") || strings.Contains(text, "0.428") {
		t.Errorf("a percent metric's panel shows raw floats:\n%s", text)
	}
	if text = open(`.al-text [data-k="i"]`); !strings.Contains(text, "Input week") || !strings.Contains(text, "The page shows “2026-W47”: the value the evidence gives.") {
		t.Errorf("input panel:\n%s", text)
	}
	if text = open(`.al-text [data-k="t"]`); !strings.Contains(text, "Table sales") || !strings.Contains(text, "Snapshot Q1 (sales)") {
		t.Errorf("table-name panel:\n%s", text)
	}
	if text = open(`.al-text [data-k="v"][data-c="amount"]`); !strings.Contains(text, "The page shows “1200.5”: the value the evidence gives.") {
		t.Errorf("cell panel:\n%s", text)
	}
}

// TestBundlePanelFollowsTheNameRule: the panel of a table or column name
// shows the snapshots that back it as evidence.Names counts them — any
// case, a column the SQL names (week) — and none for a column no snapshot
// has.
func TestBundlePanelFollowsTheNameRule(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{Report: "[[t:SALES]] [[c:Sales.WEEK]] [[c:sales.nope]]"})
	var buf bytes.Buffer
	if err := WriteBundle(&buf, r.Dir, BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	_, eval := page(t, writeTemp(t, "names.html", buf.Bytes()), 0)
	if eval(`String(window.ALResult.ok)`) != "true" {
		t.Fatal("the untouched bundle does not verify")
	}
	open := func(n string) string {
		t.Helper()
		return eval(`document.getElementById("al-close").click(); document.querySelector('.al-text [data-n="` + n + `"]').click(); ` + panelText)
	}
	for n, want := range map[string]bool{"SALES": true, "Sales.WEEK": true, "sales.nope": false} {
		if text := open(n); strings.Contains(text, "Snapshot Q1 (sales)") != want {
			t.Errorf("panel of %s (snapshot shown: want %v):\n%s", n, want, text)
		}
	}
}

// TestReportPanelCatchesAnEditedNumber: report.html verifies nothing by
// itself, but its panel compares the text shown with the evidence, so a
// number edited in the file as text is called out when clicked.
func TestReportPanelCatchesAnEditedNumber(t *testing.T) {
	p := reportHTML(t)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `data-set="kpi">42.9%</span>`, `data-set="kpi">52.9%</span>`, 1)
	if edited == string(b) {
		t.Fatal("the report has no north_share in its narrative")
	}
	_, eval := page(t, writeTemp(t, "report.html", []byte(edited)), 0)
	text := eval(`document.querySelector('.al-text [data-k="m"][data-n="north_share"]').click(); ` + panelText)
	if !strings.Contains(text, "The page shows “52.9%”, but the evidence gives “42.9%”.") {
		t.Errorf("the panel does not call out the edited number:\n%s", text)
	}
}

// TestBundleKeyboardAndSmallScreen: numbers take a visible focus, Enter
// and Space open the panel, focus moves into it and back to the number on
// Escape; at 420 px nothing scrolls sideways, panel open or not.
func TestBundleKeyboardAndSmallScreen(t *testing.T) {
	b, _ := fixtureBundle(t)
	tab, eval := page(t, writeTemp(t, "bundle.html", b), 420)
	if eval(`String(window.ALResult.ok)`) != "true" {
		t.Fatal("the untouched bundle does not verify")
	}
	if w := eval(`document.documentElement.scrollWidth + "/" + document.documentElement.clientWidth`); !sameWidth(w) {
		t.Errorf("the verified page scrolls sideways at 420 px: scrollWidth/innerWidth %s", w)
	}
	const num = `document.querySelector('.al-text [data-k="m"][data-n="gmv"]:not([data-u])')`
	for _, key := range []string{kb.Enter, " "} {
		if got := eval(num + `.focus(); String(document.activeElement === ` + num + `)`); got != "true" {
			t.Fatalf("a number does not take the focus")
		}
		if o := eval(`getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
			t.Errorf("a focused number has no visible outline")
		}
		if err := chromedp.Do(tab, chromedp.KeyEvent(key)); err != nil {
			t.Fatal(err)
		}
		if got := eval(`(document.getElementById("al-panel").hidden ? "closed" : "open") + " " + document.activeElement.id`); got != "open al-panel" {
			t.Errorf("key %q on a number: panel and focus %q, want open al-panel", key, got)
		}
		if w := eval(`document.documentElement.scrollWidth + "/" + document.documentElement.clientWidth`); !sameWidth(w) {
			t.Errorf("the page with the panel open scrolls sideways at 420 px: %s", w)
		}
		if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Escape)); err != nil {
			t.Fatal(err)
		}
		if got := eval(`(document.getElementById("al-panel").hidden ? "closed" : "open") + " " + String(document.activeElement === ` + num + `)`); got != "closed true" {
			t.Errorf("Escape: panel and focus %q, want closed and back on the number", got)
		}
	}
}

func sameWidth(w string) bool {
	a, b, _ := strings.Cut(w, "/")
	return a == b
}

// TestBundleWithoutScriptsSaysNotVerified: with scripts off the page says
// it is not verified, and the report under the notice is marked as an
// unverified copy.
func TestBundleWithoutScriptsSaysNotVerified(t *testing.T) {
	b, _ := fixtureBundle(t)
	tab, cancel := context.WithTimeout(browser(t), 30*time.Second)
	defer cancel()
	noScripts := func(off bool) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
			return err
		})
	}
	defer func() { _ = chromedp.Do(browser(t), noScripts(false)) }()
	abs, _ := filepath.Abs(writeTemp(t, "bundle.html", b))
	if err := chromedp.Do(tab, noScripts(true), chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("al-verdict").innerText + "|" + getComputedStyle(document.getElementById("al-report"), "::before").content`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Not verified") || !strings.Contains(got, "unverified copy") || !strings.Contains(got, "UNVERIFIED COPY") {
		t.Errorf("with scripts off the page shows %q", got)
	}
	if verifiedWord.MatchString(strings.Split(got, "|")[0]) {
		t.Errorf("with scripts off a person sees \"Verified\": %q", got)
	}
}

// TestVerdictSurvivesItsOwnPage: opening the check list and the panel
// keeps the verdict; a change to the verified report afterwards (as a
// script let in by a weakened policy, or an extension, would make) turns
// it into a failure that shows no report.
func TestVerdictSurvivesItsOwnPage(t *testing.T) {
	b, _ := fixtureBundle(t)
	tab, eval := page(t, writeTemp(t, "bundle.html", b), 0)
	after := func(js, read string) string {
		t.Helper()
		eval(js + `; ""`)
		if err := chromedp.Do(tab, chromedp.Sleep(50*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		return eval(read)
	}
	const state = `document.getElementById("al-verdict").getAttribute("data-status") + " " + String(window.ALResult.ok) + " " + String(!!document.getElementById("al-report"))`
	if got := after(`document.querySelector("#al-verdict details").open = true; document.querySelector('.al-text [data-k="m"]').click()`, state); got != "ok true true" {
		t.Fatalf("the page's own changes void the verdict: status, ok, report shown = %s", got)
	}
	if got := after(`document.querySelector('.al-text [data-k="m"]').textContent = "9,999.00 CNY"`, state); got != "fail false false" {
		t.Fatalf("a number changed after the verdict: status, ok, report shown = %s", got)
	}
}

// TestFailurePageFitsSmallScreens: the failure, with its long hashes and
// details, does not scroll sideways at 420 px either.
func TestFailurePageFitsSmallScreens(t *testing.T) {
	b, _ := fixtureBundle(t)
	bad := strings.Replace(string(b), `data-set="kpi">42.9%</td>`, `data-set="kpi">52.9%</td>`, 1)
	_, eval := page(t, writeTemp(t, "bad.html", []byte(bad)), 420)
	if got := eval(`String(window.ALResult.ok) + " " + document.getElementById("al-verdict").getAttribute("data-status")`); got != "false fail" {
		t.Fatalf("the edited bundle: %s", got)
	}
	if w := eval(`document.documentElement.scrollWidth + "/" + document.documentElement.clientWidth`); !sameWidth(w) {
		t.Errorf("the failure scrolls sideways at 420 px: %s", w)
	}
}
