//go:build unix

package retrieve

import "syscall"

// peakRSS is the peak resident set size of this process in bytes (Linux
// reports kilobytes).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}
