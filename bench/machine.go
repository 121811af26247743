package bench

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Machine describes where the figures were measured: they only mean
// something next to the machine's core count and CPU.
type Machine struct {
	Cores  int    // logical CPUs
	CPU    string // model name from /proc/cpuinfo
	AVX512 bool   // the CPU has AVX-512 (BLAKE3 runs about twice as fast with it)
	Go     string // Go version the benchmark was built with
	FS     string // file system of the directory the benchmark writes to
	Load   string // load averages when the benchmark started
}

// Describe reads the machine's description; dir is where the benchmark
// writes its files.
func Describe(dir string) Machine {
	m := Machine{Cores: runtime.NumCPU(), CPU: "unknown", Go: runtime.Version(), FS: fsType(dir)}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name":
				if m.CPU == "unknown" {
					m.CPU = strings.TrimSpace(v)
				}
			case "flags":
				m.AVX512 = m.AVX512 || strings.Contains(" "+v+" ", " avx512f ")
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	return m
}

func fileSize(dir, name string) (int64, error) {
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
