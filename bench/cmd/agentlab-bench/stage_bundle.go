//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// The bundle stage measures what a person waits for: bundle.html of
// examples/traceable-weekly, opened from disk in headless Chromium, until
// its verifier has put its verdict on the page (window.ALResult.ms, which
// the page records from navigation). The floor is the same file without
// its script: the parse and layout of the same bytes with nothing
// checked. Each side opens the file size times in one browser and reports
// the median; the first, cold load is kept apart.

// bundleExample is the example whose bundle is measured.
const bundleExample = "traceable-weekly"

// bundleAvailable says why the stage cannot run here, or "".
func bundleAvailable() string {
	if os.Getenv("AGENTLAB_BIN") == "" {
		return "AGENTLAB_BIN is not set (bench/run.sh sets it)"
	}
	if chromiumPath() == "" {
		return "Chromium is not installed (set AGENTLAB_CHROMIUM)"
	}
	return ""
}

func chromiumPath() string {
	for _, p := range []string{os.Getenv("AGENTLAB_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// generateBundle runs the example with the built agentlab, as a user
// would, and writes the bundle and its script-less floor into dir.
func generateBundle(dir string) error {
	bin := os.Getenv("AGENTLAB_BIN")
	run := func(args ...string) error {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("agentlab %v: %v\n%s", args, err, out)
		}
		return nil
	}
	if err := run("examples", "init", bundleExample, "ex"); err != nil {
		return err
	}
	if err := run("compile", "ex/flow.yml", "-o", "ex/flow.plan.json"); err != nil {
		return err
	}
	if err := run("run", "ex/flow.plan.json", "--formal", "--data-dir", "data", "--out", "out", "-q"); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "bundle.html"))
	if err != nil {
		return err
	}
	i, j := bytes.LastIndex(b, []byte("<script>")), bytes.LastIndex(b, []byte("</script>"))
	if i < 0 || j < i {
		return errors.New("the bundle has no inline script")
	}
	floor := append(append([]byte{}, b[:i]...), b[j+len("</script>"):]...)
	return os.WriteFile(filepath.Join(dir, "floor.html"), floor, 0o644)
}

func bundleWork(a *childArgs) (*sample, error) {
	return bundleLoads(a, filepath.Join(a.dir, "out", "bundle.html"),
		`window.ALResult!==undefined && location.search===%s`, `window.ALResult.ok ? window.ALResult.ms : -1`)
}

func bundleFloor(a *childArgs) (*sample, error) {
	return bundleLoads(a, filepath.Join(a.dir, "floor.html"),
		`document.readyState==="complete" && performance.getEntriesByType("navigation")[0].loadEventEnd>0 && location.search===%s`,
		`performance.getEntriesByType("navigation")[0].loadEventEnd`)
}

// bundleLoads opens path a.size times after one cold load, each time
// waiting until ready (a script predicate, given the load's query) and
// reading the milliseconds since navigation that figure gives.
func bundleLoads(a *childArgs, path, ready, figure string) (*sample, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "agentlab-bench-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath()), chromedp.UserDataDir(dir),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-dev-shm-usage", true))
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // the browser and its tab belong to ctx, not to one load's timeout
		return nil, fmt.Errorf("cannot start Chromium: %w", err)
	}
	abs, _ := filepath.Abs(path)
	var ms []float64
	for i := 0; i <= a.size; i++ {
		load := fmt.Sprintf("?load=%d", i)
		tab, cancelT := context.WithTimeout(ctx, 3*time.Minute)
		err := chromedp.Do(tab, chromedp.Navigate("file://"+abs+load))
		for try := 0; err == nil || (try < 3 && strings.Contains(err.Error(), "Cannot find context with specified id")); try++ {
			// the poll may start in the document the navigation replaces,
			// whose script context then goes away under it: poll again
			_, err = chromedp.Run(tab, chromedp.Poll[chromedp.Void](fmt.Sprintf(ready, strconv.Quote(load)),
				chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(3*time.Minute)))
			if err == nil {
				break
			}
		}
		var v float64
		if err == nil {
			v, err = chromedp.Run(tab, chromedp.Evaluate[float64](figure))
		}
		cancelT()
		if err != nil {
			return nil, fmt.Errorf("load %d of %s: %w", i, path, err)
		}
		if v < 0 {
			return nil, fmt.Errorf("%s does not verify in the browser", path)
		}
		ms = append(ms, v)
	}
	cold, warm := ms[0], append([]float64{}, ms[1:]...)
	sort.Float64s(warm)
	med := warm[len(warm)/2]
	return &sample{NsPerOp: med * 1e6, Ops: len(warm), Bytes: fi.Size(), Units: 1, Extra: map[string]float64{
		"cold_ns": cold * 1e6, "min_ns": warm[0] * 1e6, "max_ns": warm[len(warm)-1] * 1e6, "file_bytes": float64(fi.Size()),
	}}, nil
}
