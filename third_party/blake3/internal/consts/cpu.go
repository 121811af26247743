//go:build !purego

package consts

import (
	"os"

	// third_party change: golang.org/x/sys/cpu instead of
	// github.com/klauspost/cpuid/v2, whose init function enumerates every
	// CPUID leaf at every start of the program (each CPUID instruction
	// traps to the hypervisor in a virtual machine). x/sys/cpu reads the
	// few leaves it needs, checks that the OS saves the AVX registers, and
	// is linked into every program that uses the standard library's
	// crypto anyway.
	"golang.org/x/sys/cpu"
)

var (
	HasAVX2 = cpu.X86.HasAVX2 &&
		os.Getenv("BLAKE3_DISABLE_AVX2") == "" &&
		os.Getenv("BLAKE3_PUREGO") == ""

	HasSSE41 = cpu.X86.HasSSE41 &&
		os.Getenv("BLAKE3_DISABLE_SSE41") == "" &&
		os.Getenv("BLAKE3_PUREGO") == ""
)
