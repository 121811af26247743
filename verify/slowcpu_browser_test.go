package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// throttleCPU slows the shared tab's CPU rate-fold (1: full speed).
func throttleCPU(rate float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: rate})
		return err
	})
}

// baseSlowdown is AGENTLAB_BROWSER_SLOWDOWN, the factor by which every
// browser test slows the shared browser's CPU (1 when unset): the whole
// suite can then be run as a busy machine would run it.
func baseSlowdown() float64 {
	r, err := strconv.ParseFloat(os.Getenv("AGENTLAB_BROWSER_SLOWDOWN"), 64)
	if err != nil || r < 1 {
		return 1
	}
	return r
}

// TestBrowserVerdictOnASlowCPU opens the untouched bundle and variants
// of each verdict (a failing check, a forged verdict box, a script the
// policy blocks, a file that is the same document in other bytes) in a
// browser slowed twentyfold, as a machine whose cores are all busy slows
// it: the verdicts are those of a fast browser, because the wait ends on
// the page's own signal and no timer decides what is read.
func TestBrowserVerdictOnASlowCPU(t *testing.T) {
	ctx := browser(t)
	if testing.Short() {
		t.Skip("a slowed browser")
	}
	base, _ := fixtureBundle(t)
	variants := []pageTamper{{name: "the untouched bundle", edit: func(t *testing.T, b string) string { return b }}}
	pick := map[string]bool{
		"number in the narrative":                                           true,
		"static verified block added, the real one hidden":                  true,
		"verifier script rewritten (its hash no longer matches the policy)": true,
		"CR LF line ends everywhere":                                        true,
	}
	for _, tm := range append(pageTampers(), sameDocumentEdits()...) {
		if pick[tm.name] {
			variants = append(variants, tm)
			delete(pick, tm.name)
		}
	}
	if len(pick) > 0 {
		t.Fatalf("no variants named %v", pick)
	}
	if err := chromedp.Do(ctx, throttleCPU(max(20, baseSlowdown()))); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = chromedp.Do(browser(t), throttleCPU(baseSlowdown())) }()
	dir := t.TempDir()
	for i, tm := range variants {
		v := []byte(tm.edit(t, string(base)))
		p := filepath.Join(dir, fmt.Sprintf("slow%02d.html", i))
		if err := os.WriteFile(p, v, 0o644); err != nil {
			t.Fatal(err)
		}
		br := openBundle(t, p)
		agree(t, tm.name+" (CPU slowed 20x)", verifyVariant(t, v, Options{}), br)
	}
}
