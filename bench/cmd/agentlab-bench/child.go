//go:build unix

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

// sample is what one child process measured: one repetition of one side
// (work or floor) of one stage at one size.
type sample struct {
	NsPerOp float64            `json:"ns_per_op"`
	Ops     int                `json:"ops"`
	Bytes   int64              `json:"bytes"` // bytes processed by one op
	Units   int                `json:"units"` // nodes or events of one op
	Extra   map[string]float64 `json:"extra,omitempty"`
	RSS     int64              `json:"rss"` // peak RSS of the process, bytes
}

// childArgs are the flags of `agentlab-bench child`.
type childArgs struct {
	stage, part, dir, cpuprofile string
	size, events                 int
	min                          time.Duration
}

// runChild measures one side of one stage in this process and prints the
// sample as JSON. Each side runs in its own process so that its peak RSS
// is its own.
func runChild(argv []string) error {
	var a childArgs
	fs := flag.NewFlagSet("child", flag.ContinueOnError)
	fs.StringVar(&a.stage, "stage", "", "stage name")
	fs.StringVar(&a.part, "part", "work", "work or floor")
	fs.StringVar(&a.dir, "dir", "", "directory of the stage's inputs")
	fs.StringVar(&a.cpuprofile, "cpuprofile", "", "write a CPU profile of the measured loop here")
	fs.IntVar(&a.size, "size", 0, "input size")
	fs.IntVar(&a.events, "events", 0, "events to append (engine floor)")
	fs.DurationVar(&a.min, "min", 300*time.Millisecond, "repeat an op until this much time is measured")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	key := a.stage + "/" + a.part
	if strings.HasPrefix(a.stage, "engine-") {
		key = "engine/" + a.part
	}
	if strings.HasPrefix(a.stage, "store") {
		key = "store/" + a.part
	}
	if strings.HasPrefix(a.stage, "startup-") {
		key = "startup/" + a.part
	}
	fn, ok := childStages[key]
	if !ok {
		return fmt.Errorf("unknown stage %q part %q", a.stage, a.part)
	}
	s, err := fn(&a)
	if err != nil {
		return fmt.Errorf("%s %s at size %d: %w", a.stage, a.part, a.size, err)
	}
	if s.RSS == 0 { // the start-up stages report their processes' own
		s.RSS = peakRSS()
	}
	if lastCPU > 0 {
		if s.Extra == nil {
			s.Extra = map[string]float64{}
		}
		s.Extra["cpu_ns"] = lastCPU
	}
	return json.NewEncoder(os.Stdout).Encode(s)
}

// peakRSS is this process's high-water resident set (VmHWM), in bytes, or
// 0 where /proc is missing. It is read here rather than from the parent's
// rusage of the child: on Linux the child's ru_maxrss also counts the
// parent's resident set at the moment it was started, which would make
// every figure at least the driver's own size.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// op is one timed operation; it returns the time to count, which leaves
// out its own set-up (generating a blob, removing a directory).
type op func() (time.Duration, error)

// measure runs f once and, when that took less than min, again until min
// has been measured (not counting the first, warm-up, call). The CPU
// profile, when asked for, covers every call.
func measure(a *childArgs, f op) (ns float64, ops int, err error) {
	calls := 0
	c0 := cpuTime()
	ns, ops, err = measureLoop(a, func() (time.Duration, error) { calls++; return f() })
	if c := cpuTime(); c0 > 0 && calls > 0 && err == nil {
		lastCPU = float64(c-c0) / float64(calls) // the warm-up call included
	}
	return ns, ops, err
}

// lastCPU is the process CPU time (user + system, every thread) per op
// of the last measure call: what the op cost apart from waiting for the
// disk or for other processes on the machine.
var lastCPU float64

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measureLoop(a *childArgs, f op) (float64, int, error) {
	if a.cpuprofile != "" {
		pf, err := os.Create(a.cpuprofile)
		if err != nil {
			return 0, 0, err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return 0, 0, err
		}
		defer pprof.StopCPUProfile()
	}
	first, err := f()
	if err != nil || first >= a.min {
		return float64(first), 1, err
	}
	var total time.Duration
	n := 0
	for total < a.min {
		d, err := f()
		if err != nil {
			return 0, 0, err
		}
		total += d
		n++
	}
	return float64(total) / float64(n), n, nil
}

// setup runs f under the profiler label bench=setup, which the driver
// leaves out of the profiles it prints: generating a stage's input inside
// the measured loop is not the stage's work.
func setup(f func()) {
	pprof.Do(context.Background(), pprof.Labels("bench", "setup"), func(context.Context) { f() })
}

var childStages = map[string]func(*childArgs) (*sample, error){
	"compile/work":   compileWork,
	"compile/floor":  compileFloor,
	"engine/work":    engineWork,
	"engine/floor":   engineFloor,
	"store/work":     storeWork,
	"store/floor":    storeFloor,
	"verify/work":    verifyWork,
	"verify/floor":   verifyFloor,
	"issuance/work":  issuanceWork,
	"issuance/floor": issuanceFloor,
	"bundle/work":    bundleWork,
	"bundle/floor":   bundleFloor,
	"startup/work":   startupWork,
	"startup/floor":  startupFloor,
}
