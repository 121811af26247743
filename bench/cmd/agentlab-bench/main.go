//go:build unix

// Command agentlab-bench measures the performance budgets of docs/performance.md
// and writes the summary at the top of docs/performance.md. bench/run.sh
// builds and runs it; see that script for the one-line usage.
//
// Every figure is measured next to a floor (the cheapest thing that does
// the same job: parsing the YAML, appending the events bare, hashing the
// bytes in memory, a regexp scan) in the same run, and reported as a
// ratio, because the machines it runs on are shared and noisy. Each side of
// each measurement runs in its own child process so that its peak RSS is
// its own.
//
// Where it fits: docs/architecture.md#supporting-packages.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		if err := runChild(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "agentlab-bench child:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "memory" {
		if err := runMemory(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "agentlab-bench memory:", err)
			os.Exit(1)
		}
		return
	}
	var o options
	flag.BoolVar(&o.smoke, "smoke", false, "small inputs, one repetition: checks that every stage works, in well under a minute")
	flag.IntVar(&o.count, "count", 5, "repetitions of every measurement")
	flag.StringVar(&o.out, "out", "bench/out", "directory for generated inputs, profiles and the summary (removed inputs, kept results)")
	flag.StringVar(&o.doc, "doc", "", "rewrite the summary between the bench markers of this file (full runs only)")
	flag.IntVar(&o.profiles, "profiles", 2, "CPU-profile this many stages, the slowest relative to their floor")
	flag.StringVar(&o.only, "only", "", "comma-separated stages to run (default: all)")
	flag.Parse()
	if o.smoke {
		o.count = 1
	}
	if o.count < 1 {
		fmt.Fprintln(os.Stderr, "agentlab-bench: -count must be at least 1")
		os.Exit(2)
	}
	if o.only != "" {
		o.stages = map[string]bool{}
		for _, s := range strings.Split(o.only, ",") {
			o.stages[strings.TrimSpace(s)] = true
		}
	}
	start := time.Now()
	if err := orchestrate(&o); err != nil {
		fmt.Fprintln(os.Stderr, "agentlab-bench:", err)
		os.Exit(1)
	}
	fmt.Printf("\nagentlab-bench: done in %s\n", time.Since(start).Round(time.Second))
}
