package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// reviewScript answers the three reviewers and the merge of
// examples/parallel-review with recognisable texts.
const reviewScript = `nodes:
  style: "STYLE-REVIEW: the sentence is clear."
  facts: "FACTS-REVIEW: both claims hold."
  risks: "RISKS-REVIEW: a lost key breaks the chain."
  merge: "MERGED-REVIEW: clear, correct, mind the key."
`

// TestReportForARunWithoutReportNode runs examples/parallel-review, which
// has no report node: report.html still shows the run's output and every
// reviewer's text, the bundle verifies offline and in a headless
// Chromium, and a forger who rewrites a review in the bundle (page and
// embedded data alike) is caught by both verifiers.
func TestReportForARunWithoutReportNode(t *testing.T) {
	exe := agentlabExe(t)
	work := t.TempDir()
	cli := func(wantOK bool, args ...string) string {
		cmd := exec.Command(exe, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
		out, err := cmd.CombinedOutput()
		if (err == nil) != wantOK {
			t.Fatalf("agentlab %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	cli(true, "examples", "init", "parallel-review", "pr")
	if err := os.WriteFile(filepath.Join(work, "pr", "reviews.yml"), []byte(reviewScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cli(true, "run", "pr/flow.yml", "--provider", "script:reviews.yml", "--data-dir", "data", "--out", "out", "-q")
	page, err := os.ReadFile(filepath.Join(work, "out", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"STYLE-REVIEW", "FACTS-REVIEW", "RISKS-REVIEW", "MERGED-REVIEW", `data-k="o" data-n="review"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	bundle := filepath.Join(work, "out", "bundle.html")
	cli(true, "verify", bundle)

	// The forger rewrites the style review everywhere the page holds it.
	b, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	// Only the page and its embedded report data: the sealed events stay.
	forged := append([]byte(nil), b...)
	for _, region := range [][2]string{{`<main id="al-report">`, `</main>`}, {`<script type="application/json" id="al-data">`, `</script>`}} {
		i := bytes.Index(forged, []byte(region[0]))
		j := bytes.Index(forged[i:], []byte(region[1])) + i
		if i < 0 || j < i {
			t.Fatalf("no %s in the bundle", region[0])
		}
		part := bytes.ReplaceAll(forged[i:j], []byte("STYLE-REVIEW: the sentence is clear."), []byte("STYLE-REVIEW: the sentence is flawless"))
		if bytes.Equal(part, forged[i:j]) {
			t.Fatalf("the review is not in %s", region[0])
		}
		forged = append(append(append([]byte(nil), forged[:i]...), part...), forged[j:]...)
	}
	forgedPath := filepath.Join(work, "forged.html")
	if err := os.WriteFile(forgedPath, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := cli(false, "verify", forgedPath); !strings.Contains(out, "FAIL") {
		t.Errorf("agentlab verify does not fail the forged bundle:\n%s", out)
	}

	ctx, stop := xssBrowser(t)
	defer stop()
	verdict := func(p string) (string, string) {
		tab, cancel := chromedp.NewContext(ctx)
		defer cancel()
		tctx, cancelT := context.WithTimeout(tab, 60*time.Second)
		defer cancelT()
		if err := chromedp.Do(tctx, chromedp.Navigate("file://"+p)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(tctx, chromedp.Poll[chromedp.Void](`(function(){var s=document.getElementById("al-verdict");return !s || s.getAttribute("data-status")!=="pending"})()`, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
		raw, err := chromedp.Run(tctx, chromedp.Evaluate[string](`JSON.stringify({s: document.getElementById("al-verdict").getAttribute("data-status"), c: (window.ALResult && window.ALResult.checks) || []})`))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			S string          `json:"s"`
			C json.RawMessage `json:"c"`
		}
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		return r.S, string(r.C)
	}
	if s, c := verdict(bundle); s != "ok" {
		t.Errorf("the bundle does not verify in the browser: %s %s", s, c)
	}
	if s, c := verdict(forgedPath); s == "ok" || !strings.Contains(c, "model answers differ") {
		t.Errorf("the browser verifier accepts the forged review: %s %s", s, c)
	}
}
