//go:build !unix

package issuance

import "time"

// cpuTime is not measured on this platform; benchmarks then report wall
// time only.
func cpuTime() time.Duration { return 0 }

// peakRSS is not measured on this platform.
func peakRSS() int64 { return 0 }
