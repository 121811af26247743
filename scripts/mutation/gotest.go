package main

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// outcome is what the tests did with a mutant.
type outcome string

const (
	killed   outcome = "killed"   // a test failed
	timedOut outcome = "timeout"  // the tests did not finish: counted as killed
	survived outcome = "SURVIVED" // every test passed
	unviable outcome = "unviable" // the mutant does not compile: not counted
	flaky    outcome = "FLAKY"    // a test failed once but passed when run again: counted as survived
)

type result struct {
	outcome outcome
	took    time.Duration
	output  string
}

// goTest runs `go test` on pkg, with the overlay if one is given, killing the
// whole process group (go and the test binary) when limit passes.
func goTest(ctx context.Context, pkg, overlay string, testflags []string, limit time.Duration) result {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	args := []string{"test", "-count=1", "-vet=off", "-failfast"}
	if overlay != "" {
		args = append(args, "-overlay="+overlay)
	}
	args = append(append(args, testflags...), pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r := result{took: time.Since(start), output: string(out)}
	switch {
	case err == nil:
		r.outcome = survived
	case ctx.Err() != nil:
		r.outcome = timedOut
	case strings.Contains(r.output, "[build failed]") || strings.Contains(r.output, "[setup failed]"):
		r.outcome = unviable
	default:
		r.outcome = killed
	}
	return r
}
