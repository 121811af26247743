package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestExampleBundlesVerifyInGoAndBrowser runs the examples that write a
// bundle — including a run paused at a person then approved and resumed,
// and a run resumed under a changed plan — and requires agentlab verify
// and the bundle's own script in headless Chromium (file://, no network)
// to pass every check alike. Skipped without Chromium or with -short.
func TestExampleBundlesVerifyInGoAndBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example and a browser")
	}
	chromium := ""
	for _, p := range []string{os.Getenv("AGENTLAB_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				chromium = p
				break
			}
		}
	}
	if chromium == "" {
		t.Skip("Chromium is not installed (set AGENTLAB_CHROMIUM): skipping the in-browser half")
	}
	exe := agentlabExe(t)
	dir := t.TempDir()
	al := func(wantExit int, args ...string) string {
		t.Helper()
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "USER=alice")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != wantExit {
			t.Fatalf("agentlab %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, wantExit, out.Bytes(), errb.Bytes())
		}
		return out.String()
	}
	runID := func(dataDir string) string {
		ents, err := os.ReadDir(filepath.Join(dir, dataDir, "runs"))
		if err != nil || len(ents) != 1 {
			t.Fatalf("runs in %s: %v %v", dataDir, ents, err)
		}
		return ents[0].Name()
	}

	var bundles []string
	for _, ex := range []string{"traceable-weekly", "metric-brief", "knowledge-qa", "data-qa"} {
		al(0, "examples", "init", ex, ex)
		al(0, "run", ex+"/flow.yml", "--data-dir", "d-"+ex, "--out", "o-"+ex, "-q")
		bundles = append(bundles, "o-"+ex+"/bundle.html")
	}
	al(0, "examples", "init", "approval-gate", "ag")
	al(3, "run", "ag/flow.yml", "--data-dir", "d-ag", "--out", "o-ag", "-q")
	id := runID("d-ag")
	al(0, "approve", id, "review", "--decision", "approve", "--data-dir", "d-ag", "-q")
	al(0, "resume", id, "--data-dir", "d-ag", "-q")
	bundles = append(bundles, "o-ag/bundle.html")

	// paused, approved, resumed under a changed (same-topology) flow
	flow, err := os.ReadFile(filepath.Join(dir, "ag/flow.yml"))
	if err != nil {
		t.Fatal(err)
	}
	v2 := bytes.Replace(flow, []byte("'published: '"), []byte("'PUBLISHED: '"), 1)
	if bytes.Equal(v2, flow) {
		t.Fatal("the approval-gate flow no longer has the expression this test changes")
	}
	if err := os.WriteFile(filepath.Join(dir, "ag/v2.yml"), v2, 0o644); err != nil {
		t.Fatal(err)
	}
	al(3, "run", "ag/flow.yml", "--data-dir", "d-ag2", "--out", "o-ag2", "-q")
	id = runID("d-ag2")
	al(0, "approve", id, "review", "--decision", "approve", "--data-dir", "d-ag2", "-q")
	if out := al(0, "resume", id, "--data-dir", "d-ag2", "--plan", "ag/v2.yml"); !strings.Contains(out, "PUBLISHED: ") {
		t.Fatalf("the resumed run did not use the new plan:\n%s", out)
	}
	al(0, "verify", filepath.Join("d-ag2", "runs", id))
	bundles = append(bundles, "o-ag2/bundle.html")

	li := regexp.MustCompile(`<li[^>]*data-check="([^"]+)"[^>]*data-ok="(true|false)"`)
	for _, b := range bundles {
		var res struct {
			OK     bool `json:"ok"`
			Checks []struct {
				Name string `json:"name"`
				OK   bool   `json:"ok"`
			} `json:"checks"`
		}
		if err := json.Unmarshal([]byte(al(0, "verify", b, "--format", "json")), &res); err != nil || !res.OK {
			t.Fatalf("%s: verify: %v %+v", b, err, res)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--user-data-dir="+t.TempDir(), "--virtual-time-budget=10000", "--dump-dom", "file://"+filepath.Join(dir, b))
		dom, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: chromium: %v", b, err)
		}
		got := map[string]bool{}
		for _, m := range li.FindAllStringSubmatch(string(dom), -1) {
			got[m[1]] = m[2] == "true"
		}
		if len(got) != len(res.Checks) {
			t.Errorf("%s: the browser shows %d checks %v, Go %d", b, len(got), got, len(res.Checks))
		}
		for _, c := range res.Checks {
			if ok, seen := got[c.Name]; !seen || ok != c.OK {
				t.Errorf("%s: check %s: browser ok=%v (shown %v), Go ok=%v", b, c.Name, ok, seen, c.OK)
			}
		}
	}
}
