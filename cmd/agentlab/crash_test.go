package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/run/runlog"
)

// crashFlows are the flows the crash tests interrupt: a tool node with a
// query snapshot, metrics and a report (traceable-weekly), an agent with
// SQL tools and a report (data-qa), a human node (approval-gate) and a
// wide, parallel graph with a loop (testdata/kill).
var crashFlows = []string{
	"../../examples/traceable-weekly/flow.yml",
	"../../examples/data-qa/flow.yml",
	"../../examples/approval-gate/flow.yml",
	"testdata/kill/flow.yml",
}

// crashResult is what run and resume print with --format json.
type crashResult struct {
	Run     string         `json:"run"`
	Status  string         `json:"status"`
	Outputs map[string]any `json:"outputs"`
	Report  *string        `json:"report"`
	Bundle  *string        `json:"bundle"`
	Waiting []struct {
		Node string `json:"node"`
	} `json:"waiting"`
}

// finishRun takes a flow to a sealed run with its pages, as a person
// would: run, approve every human node it waits at, resume after each
// approval and after every crash. Each process started gets the next
// crash point in crashes (a value of AGENTLAB_TEST_CRASH_AFTER) until one
// of them crashes; then the next point is used. It returns the final
// result and how many processes crashed.
func finishRun(t *testing.T, exe, flow, dir string, crashes []string) (crashResult, int) {
	t.Helper()
	crashed := 0
	var res crashResult
	for step := 0; step < 12+2*len(crashes); step++ {
		point := ""
		if crashed < len(crashes) {
			point = crashes[crashed]
		}
		var args []string
		id := findRun(t, dir)
		switch {
		case id == "":
			args = []string{"run", flow}
		case res.Status == "waiting" && len(res.Waiting) > 0:
			args = []string{"approve", id, res.Waiting[0].Node, "--decision", "approve", "--by", "alice"}
		default:
			args = []string{"resume", id}
		}
		args = append(args, "--data-dir", dir, "--format", "json", "-q")
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000", "USER=alice")
		if point != "" {
			cmd.Env = append(cmd.Env, runlog.CrashAfterEnv+"="+point)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == -1 {
			crashed++
			res = crashResult{}
			continue
		}
		if args[0] == "approve" {
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, stderr.Bytes())
			}
			res = crashResult{}
			continue
		}
		res = crashResult{}
		if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
			t.Fatalf("%v (crash points %v): %v; stdout is not JSON: %v\n%s\nstderr:\n%s", args, crashes, err, jerr, stdout.Bytes(), stderr.Bytes())
		}
		if res.Status == "succeeded" && res.Report != nil && res.Bundle != nil {
			return res, crashed
		}
		if res.Status != "waiting" {
			t.Fatalf("%v (crash points %v): status %s: %v\n%s", args, crashes, res.Status, err, stderr.Bytes())
		}
	}
	t.Fatalf("flow %s did not finish (crash points %v, last %+v)", flow, crashes, res)
	return res, crashed
}

// chainVaries matches what a report shows of the event chain itself: the
// seal, the head event and its sequence number, which an interrupted run
// has more of (run.resumed) than an uninterrupted one.
var chainVaries = regexp.MustCompile(`("seq":)\d+|(data-n="seq">)\d+<`)

// bundleManifest matches the al-bundle block of bundle.html: the event
// lines and the seal, which an interrupted run has more of (run.resumed).
// Everything else in the bundle — the report, every artifact, the
// verifier — must equal the uninterrupted run's.
var bundleManifest = regexp.MustCompile(`(<script type="application/json" id="al-bundle">)[^<]*(</script>)`)

// samePages compares report.html and bundle.html of two runs of the same
// flow, up to the chain facts (seal, head, seq, the bundle's event lines),
// and checks that the bundle verifies.
func samePages(t *testing.T, exe string, ref, got crashResult, what string) {
	t.Helper()
	norm := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b = bundleManifest.ReplaceAll(b, []byte("${1}MANIFEST${2}"))
		for _, k := range []string{"seal", "head"} {
			if v := metaField(b, k); v != "" {
				b = bytes.ReplaceAll(b, []byte(v), []byte(strings.ToUpper(k)))
			}
		}
		return chainVaries.ReplaceAll(b, []byte("${1}${2}N"))
	}
	for _, page := range []struct {
		name     string
		ref, got string
	}{
		{"report.html", *ref.Report, *got.Report},
		{"bundle.html", *ref.Bundle, *got.Bundle},
	} {
		a, b := norm(page.ref), norm(page.got)
		if !bytes.Equal(a, b) {
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			lo := max(0, i-120)
			t.Fatalf("%s: %s differs from the uninterrupted run's at byte %d:\n got …%s…\nwant …%s…", what, page.name, i, b[lo:min(len(b), i+120)], a[lo:min(len(a), i+120)])
		}
	}
	cmd := exec.Command(exe, "verify", *got.Bundle)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: verify %s: %v\n%s", what, *got.Bundle, err, out)
	}
}

// metaField reads a field of the report's run facts (<dd data-n="KEY">).
func metaField(page []byte, key string) string {
	m := regexp.MustCompile(`data-n="` + key + `">(b3:[0-9a-f]{64})<`).FindSubmatch(page)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// eventCount is the number of events in a run's events.jsonl.
func eventCount(t *testing.T, dir, id string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(runlog.RunsDir(dir), id, runlog.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		n++
	}
	return n
}

// TestKillAtEveryEventBoundary stops agentlab with SIGKILL right after each
// event of a run of each crash flow (and right after the seal, before the
// pages), through the test hook AGENTLAB_TEST_CRASH_AFTER, resumes, and
// requires the outputs, report.html and bundle.html of the uninterrupted
// run, a bundle that verifies and a clean store. A third of the trials
// crash the resume too, a few events later. With AGENTLAB_LONG=1 every
// boundary of every flow is tried; otherwise an evenly spread sample of
// eight per flow.
func TestKillAtEveryEventBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a few hundred processes")
	}
	exe := agentlabExe(t)
	long := os.Getenv("AGENTLAB_LONG") == "1"
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	trials, doubles := 0, 0
	for _, rel := range crashFlows {
		flow, err := filepath.Abs(rel)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(flow))
		refDir := t.TempDir()
		ref, _ := finishRun(t, exe, flow, refDir, nil)
		events := eventCount(t, refDir, ref.Run)
		points := make([]int, 0, events+1)
		for n := 1; n <= events+1; n++ { // events+1 stands for the seal
			points = append(points, n)
		}
		if !long && len(points) > 8 {
			sample := make([]int, 0, 8)
			for i := 0; i < 8; i++ {
				sample = append(sample, points[i*(len(points)-1)/7])
			}
			points = sample
		}
		for _, n := range points {
			crashes := []string{fmt.Sprintf("event:%d", n)}
			if n > events {
				crashes[0] = "seal"
			} else if trials%3 == 2 {
				crashes = append(crashes, fmt.Sprintf("event:%d", n+1+rng.Intn(4)))
			}
			what := fmt.Sprintf("%s, crash after %v", name, crashes)
			dir := t.TempDir()
			got, crashed := finishRun(t, exe, flow, dir, crashes)
			if crashed == 0 {
				t.Fatalf("%s: no process crashed", what)
			}
			if crashed > 1 {
				doubles++
			}
			if !reflect.DeepEqual(got.Outputs, ref.Outputs) {
				t.Fatalf("%s: outputs differ:\n%v\nwant\n%v", what, got.Outputs, ref.Outputs)
			}
			samePages(t, exe, ref, got, what)
			checkRunClean(t, dir, got.Run)
			trials++
		}
	}
	t.Logf("RESULT kill-at-event-boundary trials=%d flows=%d resumes-killed=%d lost=0", trials, len(crashFlows), doubles)
}
