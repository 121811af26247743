//go:build unix

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/bench"
)

// TestStagesSmall runs the work and the floor of every stage in-process on
// tiny inputs, so that a change in a measured package that breaks the
// benchmark shows up in `go test`, not only in bench/run.sh.
func TestStagesSmall(t *testing.T) {
	sizes := map[string]int{"compile": 60, "engine-chain": 20, "engine-fan": 20, "store": 2, "store-nosync": 2, "verify": 300, "issuance": 1 << 14,
		"bundle":          2,
		"startup-version": 1, "startup-lint": 1}
	// The start-up stages time whole processes; `true` stands in for
	// agentlab and actionlint here (bench/run.sh builds and installs them).
	stand, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to stand in for the start-up stages' programs")
	}
	// The bundle stage needs a real agentlab (and Chromium); it runs only
	// when the caller set AGENTLAB_BIN, as bench/run.sh does.
	realBin := os.Getenv("AGENTLAB_BIN")
	t.Setenv("AGENTLAB_BIN", stand)
	t.Setenv(startupEnv, stand)
	work := t.TempDir()
	res := results{}
	var sts []stage
	for _, s := range stages() {
		n, ok := sizes[s.name]
		if !ok {
			t.Fatalf("no test size for stage %s", s.name)
		}
		os.Setenv("AGENTLAB_BIN", stand)
		if s.name == "bundle" {
			os.Setenv("AGENTLAB_BIN", realBin)
			if why := bundleAvailable(); why != "" {
				t.Logf("no bundle stage: %s", why)
				continue
			}
		}
		s.sizes, s.budget = []int{n}, n
		sts = append(sts, s)
		dir := dirOf(work, s, n)
		if err := generate(s, n, dir); err != nil {
			t.Fatalf("generate %s: %v", s.name, err)
		}
		key := s.name
		if strings.HasPrefix(key, "engine-") {
			key = "engine"
		}
		if strings.HasPrefix(key, "store") {
			key = "store"
		}
		if strings.HasPrefix(key, "startup-") {
			key = "startup"
		}
		a := &childArgs{stage: s.name, part: "work", dir: dir, size: n}
		w, err := childStages[key+"/work"](a)
		if err != nil {
			t.Fatalf("%s work: %v", s.name, err)
		}
		if w.NsPerOp <= 0 || w.Ops < 1 {
			t.Fatalf("%s work measured nothing: %+v", s.name, w)
		}
		a.part = "floor"
		if w.Extra != nil {
			a.events = int(w.Extra["events"])
		}
		f, err := childStages[key+"/floor"](a)
		if err != nil {
			t.Fatalf("%s floor: %v", s.name, err)
		}
		if f.NsPerOp <= 0 {
			t.Fatalf("%s floor measured nothing: %+v", s.name, f)
		}
		res[s.name] = map[int][]pair{n: {{w, f}}}
	}
	if ev := res["engine-chain"][20][0].work.Extra["events"]; ev < 2*20 {
		t.Errorf("the engine wrote %v events for 20 nodes", ev)
	}
	md := render(&options{count: 1}, bench.Describe(work), sts, res, nil)
	for _, s := range sts {
		if !strings.Contains(md, "| "+s.title+" |") {
			t.Errorf("the summary has no row for %s:\n%s", s.name, md)
		}
	}
	if !strings.Contains(md, "in CPU time") {
		t.Errorf("the verdicts lack their CPU-time test:\n%s", md)
	}
	if !strings.Contains(md, "## Summary") || strings.Count(md, "\n|") < len(sts)+2 {
		t.Errorf("summary:\n%s", md)
	}
}

func TestParseTop(t *testing.T) {
	out := `File: agentlab-bench
Type: cpu
Showing nodes accounting for 80ms, 100% of 80ms total
      flat  flat%   sum%        cum   cum%
      40ms 50.00% 50.00%       40ms 50.00%  internal/runtime/syscall/linux.Syscall6
         0     0%   100%       20ms 25.00%  github.com/agentlab/agentlab/run/store.(*FileStore).Get
`
	got := parseTop(out)
	if len(got) != 2 || got[0].flat != "50.00%" || got[1].cum != "25.00%" || got[1].name != "github.com/agentlab/agentlab/run/store.(*FileStore).Get" {
		t.Fatalf("parseTop = %+v", got)
	}
	if !ownCode(got[1].name) || ownCode(got[0].name) || ownCode("github.com/agentlab/agentlab/bench.Blob") {
		t.Fatal("ownCode must keep the project's packages only, not the benchmark's")
	}
}

func TestVerdicts(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{verdictMax(2.9, 3, "×"), "met"},
		{verdictMax(3.3, 3, "×"), "**missed** by 10% (3.3×)"},
		{verdictMin(25, 20, " MB/s"), "met"},
		{verdictMin(10, 50, "%"), "**missed**: 10%, 5.0× short"},
		{thousands(1234567), "1,234,567"},
		{thousands(999), "999"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
