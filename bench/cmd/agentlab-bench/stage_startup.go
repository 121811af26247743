//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentlab/agentlab/bench"
)

// The start-up stages time whole processes, as a pre-commit hook sees
// them: `agentlab version` and `agentlab lint` of one small flow, against
// actionlint (a Go linter of GitHub workflows people run in the same
// hooks) printing its version and checking one small workflow. Each side
// runs its command over and over until the stage's minimum time is spent;
// the figures are per process (wall, and CPU from the child's rusage).

// startupEnv names the environment variable that holds the actionlint
// binary; bench/run.sh sets it when it could install actionlint.
const startupEnv = "ACTIONLINT_BIN"

func writeStartupInputs(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "tiny.flow.yml"), []byte(bench.TinyFlow), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "ci.yml"), []byte(bench.TinyWorkflow), 0o644)
}

func startupWork(a *childArgs) (*sample, error) {
	bin := os.Getenv("AGENTLAB_BIN")
	if bin == "" {
		return nil, fmt.Errorf("AGENTLAB_BIN is not set (bench/run.sh builds agentlab and sets it)")
	}
	args := []string{"version"}
	if a.stage == "startup-lint" {
		args = []string{"lint", "tiny.flow.yml"}
	}
	return runProcesses(a, bin, args)
}

func startupFloor(a *childArgs) (*sample, error) {
	bin := os.Getenv(startupEnv)
	if bin == "" {
		return nil, fmt.Errorf("%s is not set", startupEnv)
	}
	args := []string{"-version"}
	if a.stage == "startup-lint" {
		args = []string{"ci.yml"}
	}
	return runProcesses(a, bin, args)
}

// runProcesses runs bin args in a.dir until a.min has passed (at least
// five times) and reports the mean wall time per process, its CPU time
// (user + system) and the largest resident set of one process.
func runProcesses(a *childArgs, bin string, args []string) (*sample, error) {
	var wall, cpu time.Duration
	var rss int64
	n := 0
	for n < 5 || wall < a.min {
		cmd := exec.Command(bin, args...)
		cmd.Dir = a.dir
		t := time.Now()
		out, err := cmd.CombinedOutput()
		wall += time.Since(t)
		if err != nil {
			return nil, fmt.Errorf("%s %v: %v\n%s", bin, args, err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, ru.Maxrss*1024)
		}
		n++
	}
	lastCPU = float64(cpu) / float64(n)
	return &sample{NsPerOp: float64(wall) / float64(n), Ops: n, Units: 1, RSS: rss}, nil
}
