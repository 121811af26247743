package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tasksOf counts the tasks (processes and threads) that uid runs now.
// RLIMIT_NPROC is checked against that count for the whole user, not for
// the sandboxed code alone, so the limit given to the code is this count
// plus Spec.MaxProcs: otherwise a user with a busy desktop could not even
// start node, whose threads count too.
func tasksOf(uid int) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/status")
	want := strconv.Itoa(uid)
	n := 0
	for _, p := range dirs {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		match, threads := false, 1
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				fields := strings.Fields(v)
				match = len(fields) > 0 && fields[0] == want
			}
			if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				if t, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					threads = t
				}
			}
		}
		f.Close()
		if match {
			n += threads
		}
	}
	return n
}
