package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiling environment variables: the eval stage of bench/run.sh uses
// them to see where a question's milliseconds go in the real command,
// process start and all (docs/performance.md, "Eval: where a question's
// time goes"). Unset, they cost two look-ups.
const (
	cpuProfileEnv   = "AGENTLAB_CPUPROFILE"
	blockProfileEnv = "AGENTLAB_BLOCKPROFILE"
	// memProfileEnv names a heap profile written when the command ends:
	// what is still held then (an evaluation's peak is at its end) and
	// every allocation made.
	memProfileEnv = "AGENTLAB_MEMPROFILE"
)

// startProfiles starts what the profiling variables ask for and returns
// the function that writes the profiles when the command ends.
func startProfiles() (stop func()) {
	cpu, block, mem := os.Getenv(cpuProfileEnv), os.Getenv(blockProfileEnv), os.Getenv(memProfileEnv)
	if cpu == "" && block == "" && mem == "" {
		return func() {}
	}
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentlab: %s: %v\n", cpuProfileEnv, err)
		} else {
			cpuFile = f
		}
	}
	if block != "" {
		// Every blocking event over 10 µs: fsync waits, channel and lock
		// waits between the workers and the writer.
		runtime.SetBlockProfileRate(10_000)
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err == nil {
				err = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "agentlab: %s: %v\n", memProfileEnv, err)
			}
		}
		if block != "" {
			f, err := os.Create(block)
			if err == nil {
				err = pprof.Lookup("block").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "agentlab: %s: %v\n", blockProfileEnv, err)
			}
		}
	}
}
