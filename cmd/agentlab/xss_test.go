package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Hostile markup from every place data enters a report: a CSV cell, an
// input's default, and the model's narrative.
const (
	xssCSV = `region,amount
"</script><script>window.__pwned='csv'</script>",100
"<img src=x onerror=""window.__pwned='csv-img'"">",50
"<!--<script>",25
"]]><svg onload=window.__pwned='svg'>",10
`
	xssFlow = `agentlab: 1
name: xss
inputs:
  note: {type: string, default: "</script><iframe srcdoc='<script>parent.__pwned=1</script>'></iframe>"}
sources:
  sales: {kind: csv, path: sales.csv}
nodes:
  - id: pull
    type: tool
    tool: db_query__sales
    args: {sql: "SELECT region, amount FROM sales ORDER BY amount DESC"}
    evidence_role: source
  - id: brief
    type: report
    prompt: "Write about {{ input.note }}"
    on_violation: mark
  - id: out
    type: output
    fields: {brief: "{{ nodes.brief.text }}", note: "{{ input.note }}"}
edges:
  - pull -> brief
  - brief -> out
`
	xssScript = `nodes:
  brief:
    - "Top region [[v:Q1.r0.region]] sold [[v:Q1.r0.amount]]; then [[v:Q1.r1.region]]. </script><script>window.__pwned='model'</script><img src=x onerror=\"window.__pwned='model-img'\"> <a href=\"javascript:window.__pwned='link'\">x</a> [[table:Q1 cols=region,amount rows=0-3]] About 12 stores."
`
)

// xssNeedles must never appear as markup in a page: they would be
// elements if the data were not escaped. (Handlers inside them are checked
// in the browser: as escaped text, "onload=…" is harmless.)
var xssNeedles = []string{
	"<script>window.__pwned", "<img src=x", "<svg onload", "<!--<script>", "<iframe", `<a href="javascript:`, "]]><svg",
}

// TestReportAndBundleEscapeData runs a flow whose data, input and model
// narrative carry hostile markup, then checks report.html and bundle.html:
// the markup is nowhere in the page as markup, the data blocks cannot close
// their <script> element, the only executable script is the page's own,
// the bundle still verifies, and — in a headless Chromium when one is
// installed — after every reference in the report has been clicked open,
// no element or script from the data exists or ran.
func TestReportAndBundleEscapeData(t *testing.T) {
	exe := agentlabExe(t)
	work := t.TempDir()
	for name, body := range map[string]string{"sales.csv": xssCSV, "flow.yml": xssFlow, "calls.yml": xssScript} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		cmd := exec.Command(exe, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("agentlab %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := run("run", "flow.yml", "--provider", "script:calls.yml", "--data-dir", "data", "--out", "out")
	if !strings.Contains(out, "window.__pwned='model'") || !strings.Contains(out, "window.__pwned='csv'") {
		t.Fatalf("the hostile strings did not reach the outputs (the test would prove nothing):\n%s", out)
	}
	run("verify", filepath.Join("out", "bundle.html"))

	pages := []string{filepath.Join(work, "out", "report.html"), filepath.Join(work, "out", "bundle.html")}
	script := regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The escaped form is there: the data was written, as text.
		if !bytes.Contains(b, []byte("window.__pwned=&#39;model&#39;")) && !bytes.Contains(b, []byte(`window.__pwned=\u0027model\u0027`)) {
			t.Errorf("%s: the narrative's markup is missing, escaped or not", p)
		}
		outside := script.ReplaceAll(b, nil)
		for _, n := range xssNeedles {
			if bytes.Contains(outside, []byte(n)) {
				t.Errorf("%s: %q appears as markup", p, n)
			}
		}
		executable := 0
		for _, m := range script.FindAllSubmatch(b, -1) {
			attrs, body := string(m[1]), m[2]
			if !strings.Contains(attrs, `type="application/json"`) {
				executable++
				continue
			}
			if bytes.ContainsAny(body, "<>") {
				i := bytes.IndexAny(body, "<>")
				t.Errorf("%s: a data block holds a raw %q (it could close its element): %q", p, body[i], body[max(0, i-40):min(len(body), i+40)])
			}
		}
		if executable != 1 {
			t.Errorf("%s: %d executable <script> elements, want the page's own only", p, executable)
		}
	}

	ctx, stop := xssBrowser(t)
	defer stop()
	for _, p := range pages {
		tab, cancel := chromedp.NewContext(ctx)
		tctx, cancelT := context.WithTimeout(tab, 60*time.Second)
		if err := chromedp.Do(tctx, chromedp.Navigate("file://"+p)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		clicked, err := chromedp.Run(tctx, chromedp.Evaluate[int](`(function(){var n=0;document.querySelectorAll("[data-k]").forEach(function(e){e.click();n++});return n})()`))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		time.Sleep(300 * time.Millisecond) // let a failed image fire its handler, were there one
		js := `String(window.__pwned) + "|" + document.querySelectorAll('img[src="x"], svg, iframe, a[href^="javascript"], [onerror], [onload]').length + "|" + (document.body.textContent.indexOf("<script>window.__pwned='model'</script>") >= 0)`
		verdict, err := chromedp.Run(tctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if verdict != "undefined|0|true" {
			t.Errorf("%s: pwned|elements|markup-shown-as-text = %s, want undefined|0|true (after %d references clicked)", p, verdict, clicked)
		}
		if clicked < 3 {
			t.Errorf("%s: only %d references to open", p, clicked)
		}
		cancelT()
		cancel()
	}
	t.Logf("RESULT xss trials=%d pages=%d payloads=%d", len(pages)*len(xssNeedles), len(pages), len(xssNeedles))
}

// xssBrowser starts a headless Chromium, or skips the rest of the test.
func xssBrowser(t *testing.T) (context.Context, func()) {
	t.Helper()
	exe := os.Getenv("AGENTLAB_CHROMIUM")
	for _, c := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if exe != "" {
			break
		}
		exe, _ = exec.LookPath(c)
	}
	if exe == "" {
		t.Skip("Chromium is not installed: the in-browser half of the XSS check is skipped (.ci/run installs it)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	if err := chromedp.Do(ctx); err != nil {
		cancelC()
		cancelA()
		t.Skipf("cannot start Chromium: %v", err)
	}
	return ctx, func() { cancelC(); cancelA() }
}
