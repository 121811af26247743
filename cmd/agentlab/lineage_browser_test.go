package main

import (
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

// panelView is what the side panel of report.html shows for one metric.
type panelView struct {
	Name  string   `json:"name"`
	Text  string   `json:"text"`
	Uses  []string `json:"uses"`
	Cited int      `json:"cited"` // highlighted cells
	Count int      `json:"count"` // tables of counted rows
}

// TestReportPanelShowsFullLineage runs the governed examples and, in a
// headless Chromium, opens every metric of report.html: the panel shows
// its formula, every metric it uses with its value (and, through them,
// their cells), and at least one cell of data behind it — a derived metric
// such as avg_order is never "Cited cells (0)", a row count shows the rows
// it counted, a ratio shows its denominator's cells too.
func TestReportPanelShowsFullLineage(t *testing.T) {
	exe := agentlabExe(t)
	ctx, stop := xssBrowser(t)
	defer stop()
	for _, tc := range []struct {
		example string
		uses    map[string][]string // metric → the metrics its panel must list
		through map[string]string   // metric → a phrase its cell count must carry
	}{
		{"traceable-weekly",
			map[string][]string{"avg_order": {"gmv", "orders"}, "top_share": {"gmv"}},
			map[string]string{"avg_order": "through gmv, orders", "top_share": "through gmv"}},
		{"metric-brief",
			map[string][]string{"aov": {"orders", "revenue"}, "refund_rate": {"revenue"}},
			map[string]string{"aov": "through", "refund_rate": "through revenue"}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			work := t.TempDir()
			run := func(args ...string) {
				cmd := exec.Command(exe, args...)
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("agentlab %s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
			run("examples", "init", tc.example, "ex")
			run("compile", "ex/flow.yml", "-o", "ex/flow.plan.json")
			run("run", "ex/flow.plan.json", "--data-dir", "data", "--out", "out", "-q")
			page := filepath.Join(work, "out", "report.html")

			tab, cancel := chromedp.NewContext(ctx)
			defer cancel()
			tctx, cancelT := context.WithTimeout(tab, 60*time.Second)
			defer cancelT()
			if err := chromedp.Do(tctx, chromedp.Navigate("file://"+page)); err != nil {
				t.Fatal(err)
			}
			raw, err := chromedp.Run(tctx, chromedp.Evaluate[string](`JSON.stringify(Array.prototype.map.call(
				document.querySelectorAll('section.al-metrics [data-k="m"]'), function (el) {
					el.click();
					var b = document.getElementById("al-panel-body");
					return {name: el.getAttribute("data-n"), text: b.textContent,
						uses: Array.prototype.map.call(b.querySelectorAll(".al-uses [data-k=m]"), function (u) { return u.getAttribute("data-n"); }),
						cited: b.querySelectorAll("td.al-hl-cell").length,
						count: Array.prototype.filter.call(b.querySelectorAll("h4"), function (x) { return x.textContent.indexOf("Rows counted in") === 0; }).length};
				}))`))
			if err != nil {
				t.Fatal(err)
			}
			var views []panelView
			if err := json.Unmarshal([]byte(raw), &views); err != nil {
				t.Fatal(err)
			}
			if len(views) < 4 {
				t.Fatalf("only %d metrics in the page", len(views))
			}
			for _, v := range views {
				if !strings.Contains(v.Text, "Formula") || strings.Contains(v.Text, "Cited cells (0)") {
					t.Errorf("%s: the panel shows no data behind it:\n%s", v.Name, v.Text)
				}
				if v.Cited == 0 && v.Count == 0 {
					t.Errorf("%s: no cell highlighted and no counted rows shown:\n%s", v.Name, v.Text)
				}
				if want := tc.uses[v.Name]; want != nil && strings.Join(v.Uses, ",") != strings.Join(want, ",") {
					t.Errorf("%s: uses %v, want %v", v.Name, v.Uses, want)
				}
				if p := tc.through[v.Name]; p != "" && !strings.Contains(v.Text, p) {
					t.Errorf("%s: the cell count does not say %q:\n%s", v.Name, p, v.Text)
				}
			}
		})
	}
}
