//go:build !unix

package retrieve

// peakRSS is not measured on this platform.
func peakRSS() int64 { return 0 }
