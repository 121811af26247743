package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser tests open bundles and reports from file:// in one headless
// Chromium (no network) and read the verdict the page's own script
// computes. They are skipped, with a message, when Chromium is absent.

var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  string
)

func chromiumPath() string {
	for _, p := range []string{os.Getenv("AGENTLAB_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// browser returns a context of the shared headless browser.
// Under -short it skips: the mutation harness runs the quick tests first
// and the browser ones only for the mutants they let through.
func browser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the in-browser verifier tests")
	}
	browserOnce.Do(func() {
		exe := chromiumPath()
		if exe == "" {
			browserErr = "Chromium is not installed (set AGENTLAB_CHROMIUM or install chromium; .ci/run does): skipping the in-browser verifier tests"
			return
		}
		dir, err := os.MkdirTemp("", "agentlab-chromium-")
		if err != nil {
			browserErr = err.Error()
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(exe), chromedp.UserDataDir(dir),
			chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1600, 1200),
		}
		actx, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, _ := chromedp.NewContext(actx)
		if err := chromedp.Do(ctx); err != nil {
			browserErr = "cannot start Chromium: " + err.Error()
			return
		}
		if r := baseSlowdown(); r > 1 {
			if err := chromedp.Do(ctx, throttleCPU(r)); err != nil {
				browserErr = "cannot slow Chromium down: " + err.Error()
				return
			}
		}
		browserCtx = ctx
	})
	if browserErr != "" {
		t.Skip(browserErr)
	}
	return browserCtx
}

// browserResult is the verdict bundle.html computes about itself.
type browserResult struct {
	OK     bool    `json:"ok"`
	Status string  `json:"status"`
	Checks []Check `json:"checks"`
	// Visible is the text a person sees (innerText: hidden elements and
	// styled-away text excluded).
	Visible string `json:"visible"`
	Report  bool   `json:"report"` // the page holds a report
}

// openBundle loads a bundle file in a new tab and waits for its verdict.
// A page whose script does not run (blocked by its CSP) stays "pending",
// which counts as not verified.
func openBundle(t *testing.T, path string) browserResult {
	t.Helper()
	return openBundleSettled(t, path, 0)
}

// openBundleSettled is openBundle that waits settle more after the verdict.
func openBundleSettled(t *testing.T, path string, settle time.Duration) browserResult {
	t.Helper()
	r, err := loadVerdict(t, path, settle)
	for try := 0; try < 3 && err != nil && strings.Contains(err.Error(), "Cannot find context with specified id"); try++ {
		// the previous page's script context went away under the poll (a
		// navigation race of the shared tab on a loaded machine): again
		r, err = loadVerdict(t, path, settle)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// verdictBound bounds one load. The wait ends on the page's own signal
// (window.ALResult, set once the verdict is on the page), never on a
// timer, so a generous bound costs nothing when the machine is idle and
// keeps a loaded one (other processes busy on every core, the verifier a
// hundred times slower) from failing a test that would pass.
const verdictBound = 3 * time.Minute

// loads numbers the loads, so that each waits for its own document.
var loads atomic.Int64

func loadVerdict(t *testing.T, path string, settle time.Duration) (browserResult, error) {
	tab, cancel := context.WithTimeout(browser(t), verdictBound)
	defer cancel()
	abs, _ := filepath.Abs(path)
	// the query names this load: the poll below runs in this document only,
	// never in the previous one of the shared tab still holding its verdict
	load := fmt.Sprintf("?load=%d", loads.Add(1))
	err := chromedp.Do(tab, chromedp.Navigate("file://"+abs+load))
	if err == nil {
		// a page whose script was blocked (by its CSP) never leaves "pending":
		// once the document has loaded without the script having run, stop
		_, err = chromedp.Run(tab, chromedp.Poll[chromedp.Void](`location.search===`+strconv.Quote(load)+` && (window.ALResult!==undefined || (document.readyState==="complete" && typeof AL==="undefined"))`,
			chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(verdictBound)))
	}
	if err == nil && settle > 0 {
		// let a script the variant planted act after the verdict
		err = chromedp.Do(tab, chromedp.Sleep(settle))
	}
	var raw string
	if err == nil {
		raw, err = chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify({status:(document.getElementById("al-verdict")||{getAttribute:function(){return "missing"}}).getAttribute("data-status"), ok:!!(window.ALResult&&window.ALResult.ok), checks:(window.ALResult&&window.ALResult.checks)||[], visible:document.body?document.body.innerText:"", report:!!document.getElementById("al-report")})`))
	}
	var r browserResult
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return r, err
	}
	if r.Status != "ok" {
		r.OK = false
	}
	return r, nil
}

func TestBrowserVerifiesBundle(t *testing.T) {
	b, _ := fixtureBundle(t)
	p := writeTemp(t, "bundle.html", b)
	r := openBundle(t, p)
	for _, c := range r.Checks {
		t.Logf("%-10s %v %s", c.Name, c.OK, c.Detail)
	}
	if !r.OK {
		t.Fatalf("the browser does not verify the untouched bundle (status %s)", r.Status)
	}
}
