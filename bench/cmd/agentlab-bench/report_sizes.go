//go:build unix

package main

import (
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/bench"
)

// sizeNotes gives, for a stage with a memory target, the CPU-time ratio
// and the peak-RSS ratio to the floor at every size, with the verdict of
// each against its target: the budget row shows the budget size only,
// and a compile that is near its floor at 10,000 nodes must stay there at
// 100,000.
func sizeNotes(o *options, s stage, bySize map[int][]pair) []string {
	if s.memTarget == 0 || s.kind != timeRatio {
		return nil
	}
	var sizes []int
	for n := range bySize {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	var notes []string
	for _, n := range sizes {
		var cw, cf, mw, mf []float64
		for _, p := range bySize[n] {
			if p.floor == nil {
				continue
			}
			if a, b := p.work.Extra["cpu_ns"], p.floor.Extra["cpu_ns"]; a > 0 && b > 0 {
				cw, cf = append(cw, a), append(cf, b)
			}
			if p.work.RSS > 0 && p.floor.RSS > 0 {
				mw, mf = append(mw, float64(p.work.RSS)), append(mf, float64(p.floor.RSS))
			}
		}
		cpu := bench.Summarize(bench.Ratios(cw, cf))
		mem := bench.Summarize(bench.Ratios(mw, mf))
		if cpu.N == 0 || mem.N == 0 {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s at %s: CPU time %s the floor's (target ≤ %g×: %s); peak RSS %s the floor's, %s / %s (target ≤ %g×: %s).",
			s.name, sizeLabel(s, n), spread(cpu, "%.2f", "×"), s.target, metOrMissed(cpu.Median <= s.target),
			spread(mem, "%.2f", "×"), mib(int64(bench.Summarize(mw).Median)), mib(int64(bench.Summarize(mf).Median)), s.memTarget, metOrMissed(mem.Median <= s.memTarget)))
	}
	return notes
}

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}
