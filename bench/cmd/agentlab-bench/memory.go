//go:build unix

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/agentlab/agentlab/bench"
)

// runMemory measures how much memory `agentlab verify` needs against the
// size of what it checks: it generates a sealed run of -mib MiB of
// artifacts (1 MiB each, plus an event log), writes its bundle.html with
// `agentlab report`, and runs `agentlab verify` on the run directory and
// on the bundle, each in its own process, reading each one's peak
// resident set from getrusage. verify streams both forms, so the peak
// must stay under twice the input; -max-ratio makes a larger one an
// error.
func runMemory(args []string) error {
	fl := flag.NewFlagSet("memory", flag.ContinueOnError)
	mibs := fl.Int("mib", 128, "MiB of artifacts in the generated run")
	out := fl.String("out", "bench/out", "directory for the generated run (removed at the end)")
	maxRatio := fl.Float64("max-ratio", 2, "fail when a peak RSS exceeds this many times its input (0: report only)")
	keep := fl.Bool("keep", false, "keep the generated run and bundle (to profile verify on them)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	bin := os.Getenv("AGENTLAB_BIN")
	if bin == "" {
		return fmt.Errorf("AGENTLAB_BIN must name the agentlab binary")
	}
	work, err := filepath.Abs(filepath.Join(*out, "work-memory"))
	if err != nil {
		return err
	}
	os.RemoveAll(work)
	if *keep {
		fmt.Println("keeping the generated run under", work)
	} else {
		defer os.RemoveAll(work)
	}
	data := filepath.Join(work, "data")
	g, err := bench.WriteRun(data, bench.RunSpec{ID: "bench-memory", Events: 20_000, Blobs: *mibs, BlobSize: 1 << 20})
	if err != nil {
		return err
	}
	pages := filepath.Join(work, "pages")
	if b, err := exec.Command(bin, "report", "bench-memory", "--data-dir", data, "-o", pages).CombinedOutput(); err != nil {
		return fmt.Errorf("agentlab report: %v\n%s", err, b)
	}
	bundle := filepath.Join(pages, "bundle.html")
	bundleSize, err := fileBytes(bundle)
	if err != nil {
		return err
	}
	var failed bool
	for _, c := range []struct {
		what, path string
		size       int64
	}{
		{"run directory (events.jsonl + artifacts)", g.Dir, g.LogBytes + g.BlobBytes},
		{"bundle.html", bundle, bundleSize},
	} {
		rss, err := childPeakRSS(bin, "verify", c.path)
		if err != nil {
			return err
		}
		ratio := float64(rss) / float64(c.size)
		verdict := ""
		switch {
		case *maxRatio <= 0:
		case ratio > *maxRatio:
			verdict, failed = fmt.Sprintf(" (OVER the %.1f× bound)", *maxRatio), true
		default:
			verdict = fmt.Sprintf(" (within the %.1f× bound)", *maxRatio)
		}
		fmt.Printf("verify memory: %s: input %s, peak RSS %s, %.2f× the input%s\n",
			c.what, mib(c.size), mib(rss), ratio, verdict)
	}
	if failed {
		return fmt.Errorf("verify's peak memory exceeds %.1f× its input", *maxRatio)
	}
	return nil
}

// childPeakRSS runs bin with args and returns the child's peak resident
// set (ru_maxrss). The driver is small when it starts the child, so the
// part of the figure inherited from the parent at fork is negligible.
func childPeakRSS(bin string, args ...string) (int64, error) {
	cmd := exec.Command(bin, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("agentlab %v: %v\n%s", args, err, buf.Bytes())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("no resource usage for agentlab %v", args)
	}
	return int64(ru.Maxrss) * 1024, nil // kilobytes on Linux
}

func fileBytes(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if fi.Mode().Type() != 0 {
		return 0, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrInvalid}
	}
	return fi.Size(), nil
}
