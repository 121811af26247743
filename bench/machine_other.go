//go:build !unix

package bench

// fsType is not known on this system.
func fsType(dir string) string { return "unknown" }
