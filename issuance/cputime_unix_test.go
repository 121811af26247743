//go:build unix

package issuance

import (
	"syscall"
	"time"
)

// cpuTime is the user+system CPU time of this process, so that benchmarks
// can report throughput per CPU second on a machine shared with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the peak resident set size of this process in bytes (Linux
// reports kilobytes).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}
