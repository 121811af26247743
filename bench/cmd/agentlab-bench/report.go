//go:build unix

package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentlab/agentlab/bench"
)

// render writes the markdown summary: the budget table, the scaling table
// and the profiles' top entries.
func render(o *options, m bench.Machine, sts []stage, res results, profs []profile) string {
	var b strings.Builder
	avx := ""
	if m.AVX512 {
		avx = ", AVX-512"
	}
	mode := fmt.Sprintf("%d repetitions", o.count)
	if o.smoke {
		mode = "smoke run (small inputs, 1 repetition)"
	}
	b.WriteString("## Summary\n\n")
	fmt.Fprintf(&b, "Written by `bench/run.sh` on %s: %d cores, %s%s; %s; files on %s; load average %s at the start; %s. "+
		"Every figure is min / median / max over the repetitions, next to its floor measured in the same run "+
		"(work and floor alternate, each in its own process); verdicts use the median of the wall-clock figures, "+
		"followed by the same test on process CPU time (user + system), which other load on the machine distorts less. "+
		"Peak RSS is the largest maximum resident set of the work's and of the floor's processes.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), m.Cores, m.CPU, avx, m.Go, m.FS, m.Load, mode)

	b.WriteString("| work | size | figure (min / median / max) | floor | floor figure | vs floor | vs floor in CPU time (median) | target | verdict | peak RSS work / floor |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	var notes []string
	for _, s := range sts {
		n := s.budgetFor(o)
		ps := res[s.name][n]
		if len(ps) == 0 {
			continue
		}
		r := figures(s, ps)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n",
			s.title, sizeLabel(s, n), r.work, s.floor, r.floor, r.ratio, r.cpuRatio, s.targetS, r.verdict, mib(r.rssW), mib(r.rssF))
		notes = append(notes, r.notes...)
	}
	for _, s := range sts {
		notes = append(notes, sizeNotes(o, s, res[s.name])...)
	}
	notes = append(notes, o.skipped...)
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}

	var scaled []stage
	for _, s := range sts {
		if s.scale && len(s.sizesFor(o)) > 1 {
			scaled = append(scaled, s)
		}
	}
	if len(scaled) > 0 {
		b.WriteString("\n**Scaling** (median time per run of the work at each size; the exponent k is the slope of a least-squares fit of log time on log size over every repetition: 1 is linear):\n\n")
		b.WriteString("| work | 1× | 10× | 100× | exponent k |\n|---|---|---|---|---|\n")
		// every scaled stage grows its input tenfold per step
		for _, s := range scaled {
			var xs, ys []float64
			cells := []string{}
			for _, n := range s.sizesFor(o) {
				var ws []float64
				for _, p := range res[s.name][n] {
					xs, ys = append(xs, float64(n)), append(ys, p.work.NsPerOp)
					ws = append(ws, p.work.NsPerOp)
				}
				cells = append(cells, fmt.Sprintf("%s: %s", sizeLabel(s, n), fmtDur(bench.Summarize(ws).Median)))
			}
			for len(cells) < 3 {
				cells = append(cells, "—")
			}
			k := bench.FitExponent(xs, ys)
			verdict := "linear"
			if math.IsNaN(k) {
				verdict = "n/a"
			} else if k > 1.15 {
				verdict = "**superlinear**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f (%s) |\n", s.name, cells[0], cells[1], cells[2], k, verdict)
		}
	}

	if len(profs) > 0 {
		b.WriteString("\n**CPU profiles** of the work of the stages slowest relative to their floor (in `bench/out/`; top entries by flat time, with cumulative time):\n\n")
		for _, p := range profs {
			fmt.Fprintf(&b, "- `%s` (`bench/out/%s`): ", p.stage, lastElem(p.path))
			if len(p.top) == 0 {
				b.WriteString("no `go tool pprof` output (is `go` on PATH?)\n")
				continue
			}
			var parts []string
			for _, e := range p.top[:min(6, len(p.top))] {
				parts = append(parts, fmt.Sprintf("`%s` %s flat, %s cum", shortFunc(e.name), e.flat, e.cum))
			}
			b.WriteString(strings.Join(parts, "; "))
			if len(p.cum) > 0 {
				parts = parts[:0]
				for _, e := range p.cum {
					parts = append(parts, fmt.Sprintf("`%s` %s", shortFunc(e.name), e.cum))
				}
				b.WriteString(". The project's own code by cumulative time: " + strings.Join(parts, "; "))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

type figure struct {
	work, floor, ratio, verdict string
	cpuRatio                    string // the same ratio in process CPU time, which load on the machine distorts less
	rssW, rssF                  int64
	notes                       []string
}

// figures formats one stage's repetitions at its budget size.
func figures(s stage, ps []pair) figure {
	var w, f, ratio []float64
	var r figure
	var plain, raw, b3, b3n, cli, rd, mm, mem, cpuW, cpuF []float64
	floorMmap := false
	for _, p := range ps {
		if s.kind == perUnit {
			if v := p.work.Extra["cpu_ns"]; v > 0 {
				cpuW = append(cpuW, v/float64(p.work.Units)/1e6)
			}
			if v := p.floor.Extra["cpu_ns"]; v > 0 {
				cpuF = append(cpuF, v/float64(p.floor.Units)/1e6)
			}
		}
		if v := p.floor.Extra["read_ns"]; v > 0 {
			rd = append(rd, float64(p.floor.Bytes)/v*1e3)
		}
		if v := p.floor.Extra["mmap_ns"]; v > 0 {
			mm = append(mm, float64(p.floor.Bytes)/v*1e3)
		}
		if v := p.floor.Extra["mem_ns"]; v > 0 {
			mem = append(mem, float64(p.floor.Bytes)/v*1e3)
		}
		floorMmap = floorMmap || p.floor.Extra["floor_mmap"] > 0
		if v := p.work.Extra["cli_ns"]; v > 0 {
			cli = append(cli, mbps(&sample{NsPerOp: v, Bytes: p.work.Bytes}))
		}
		r.rssW, r.rssF = max(r.rssW, p.work.RSS), max(r.rssF, p.floor.RSS)
		switch s.kind {
		case timeRatio:
			w, f = append(w, p.work.NsPerOp/1e6), append(f, p.floor.NsPerOp/1e6)
		case perUnit:
			w, f = append(w, p.work.NsPerOp/float64(p.work.Units)/1e6), append(f, p.floor.NsPerOp/float64(p.floor.Units)/1e6)
		default:
			w, f = append(w, mbps(p.work)), append(f, mbps(p.floor))
		}
		if p.floor.Extra != nil {
			if v := p.floor.Extra["plainfile_ns"]; v > 0 {
				plain = append(plain, float64(p.floor.Bytes)/v*1e3)
			}
			if v := p.floor.Extra["raw_ns"]; v > 0 {
				raw = append(raw, float64(p.floor.Bytes)/v*1e3)
			}
			if v := p.floor.Extra["b3sum_ns"]; v > 0 {
				b3 = append(b3, float64(p.floor.Bytes)/v*1e3)
				b3n = append(b3n, p.floor.Extra["b3sum_files"])
			}
		}
	}
	ratio = bench.Ratios(w, f)
	var cw, cf []float64
	for _, p := range ps {
		if p.work.Extra["cpu_ns"] > 0 && p.floor.Extra["cpu_ns"] > 0 {
			cw, cf = append(cw, p.work.Extra["cpu_ns"]/float64(max(p.work.Units, 1))), append(cf, p.floor.Extra["cpu_ns"]/float64(max(p.floor.Units, 1)))
		}
	}
	r.cpuRatio = "—"
	// cpuMet says whether the target holds in CPU time too; "" when
	// there is no CPU figure.
	cpuMet := ""
	if cr := bench.Summarize(bench.Ratios(cw, cf)); cr.N > 0 {
		switch s.kind {
		case timeRatio:
			r.cpuRatio = fmt.Sprintf("%.2f×", cr.Median)
			cpuMet = cpuVerdict(cr.Median <= s.target, r.cpuRatio)
		case perUnit:
			r.cpuRatio = fmt.Sprintf("%.2f×", cr.Median)
			per := bench.Summarize(cw).Median / 1e6
			cpuMet = cpuVerdict(per <= s.target, fmt.Sprintf("%.3f ms/node", per))
		case throughputAbs:
			r.cpuRatio = fmt.Sprintf("%.2f×", 1/cr.Median)
			var mb []float64
			for _, p := range ps {
				if c := p.work.Extra["cpu_ns"]; c > 0 {
					mb = append(mb, float64(p.work.Bytes)/c*1e3)
				}
			}
			m := bench.Summarize(mb).Median
			cpuMet = cpuVerdict(m >= s.target, fmt.Sprintf("%.0f MB per CPU second", m))
		default:
			r.cpuRatio = fmt.Sprintf("%.0f%%", 100/cr.Median)
			cpuMet = cpuVerdict(1/cr.Median >= s.target, r.cpuRatio)
		}
	}

	ws, fs, rs := bench.Summarize(w), bench.Summarize(f), bench.Summarize(ratio)
	switch s.kind {
	case timeRatio:
		r.work, r.floor = spread(ws, "%.0f", " ms"), spread(fs, "%.0f", " ms")
		r.ratio = spread(rs, "%.2f", "×")
		r.verdict = verdictMax(rs.Median, s.target, "×")
	case perUnit:
		r.work, r.floor = spread(ws, "%.3f", " ms/node"), spread(fs, "%.3f", " ms/node")
		r.ratio = spread(rs, "%.2f", "×")
		r.verdict = verdictMax(ws.Median, s.target, " ms/node")
	case throughputRatio, info:
		r.work, r.floor = spread(ws, "%.0f", " MB/s"), spread(fs, "%.0f", " MB/s")
		r.ratio = spread(scale(rs, 100), "%.0f", "%")
		if s.kind == info {
			r.verdict = "reference"
		} else {
			r.verdict = verdictMin(rs.Median*100, s.target*100, "%")
		}
	case throughputAbs:
		r.work, r.floor = spread(ws, "%.0f", " MB/s"), spread(fs, "%.0f", " MB/s")
		r.ratio = spread(rs, "%.2f", "×")
		r.verdict = verdictMin(ws.Median, s.target, " MB/s")
	}
	if len(plain) > 0 && len(raw) > 0 && s.name == "store" {
		r.notes = append(r.notes, fmt.Sprintf("store references: BLAKE3 of the same bytes in memory on one core %s (the store hashes every blob twice: to name it and to check it on read); plain `os.WriteFile` + `os.ReadFile` of the same blobs (no hash, no fsync, no rename) %s.",
			spread(bench.Summarize(raw), "%.0f", " MB/s"), spread(bench.Summarize(plain), "%.0f", " MB/s")))
	}
	if len(b3) > 0 && s.name == "store" {
		r.notes = append(r.notes, fmt.Sprintf("`b3sum --no-names` over the %.0f blob files the store wrote (page cache warm, its own threads): %s.",
			bench.Summarize(b3n).Median, spread(bench.Summarize(b3), "%.0f", " MB/s")))
	}
	if len(rd) > 0 && len(mm) > 0 && len(mem) > 0 {
		r.notes = append(r.notes, fmt.Sprintf("verify references, every core: BLAKE3 of the same bytes already in memory %s; hashing the files from the page cache with read(2) into a reused 1 MiB buffer per core (what verify does) %s, through mmap (no copy; what `b3sum` does) %s.",
			spread(bench.Summarize(mem), "%.0f", " MB/s"), spread(bench.Summarize(rd), "%.0f", " MB/s"), spread(bench.Summarize(mm), "%.0f", " MB/s")))
	}
	if floorMmap {
		r.notes = append(r.notes, "verify: b3sum is not installed, so its floor is the mmap figure above (the same hashing without b3sum's own start-up).")
	}
	if len(cpuW) > 0 && len(cpuF) > 0 {
		r.notes = append(r.notes, fmt.Sprintf("%s: CPU time (user + system, every thread) %s per node, floor %s; the rest of the wall time is waiting, mostly for the fsync of each durable event.",
			s.name, spread(bench.Summarize(cpuW), "%.3f", " ms"), spread(bench.Summarize(cpuF), "%.3f", " ms")))
	}
	if len(cli) > 0 {
		r.notes = append(r.notes, fmt.Sprintf("`agentlab verify RUN_DIR --format json` through the built binary on the same run (process start included): %s.",
			spread(bench.Summarize(cli), "%.0f", " MB/s")))
	}
	if s.name == "bundle" && len(ps) > 0 && ps[0].work.Extra != nil {
		var cold, lo, hi []float64
		for _, p := range ps {
			cold, lo, hi = append(cold, p.work.Extra["cold_ns"]/1e6), append(lo, p.work.Extra["min_ns"]/1e6), append(hi, p.work.Extra["max_ns"]/1e6)
		}
		r.notes = append(r.notes, fmt.Sprintf("bundle: `bundle.html` is %s bytes; each repetition is the median of %d loads in one browser after a first, cold load (%s); the fastest load of a repetition %s, the slowest %s; the peak RSS is the driver's, not the browser's.",
			thousands(int(ps[0].work.Bytes)), ps[0].work.Ops, spread(bench.Summarize(cold), "%.0f", " ms"), spread(bench.Summarize(lo), "%.0f", " ms"), spread(bench.Summarize(hi), "%.0f", " ms")))
	}
	if cpuMet != "" && s.kind != info {
		r.verdict += "; " + cpuMet
	}
	return r
}

func mbps(s *sample) float64 {
	if s.NsPerOp == 0 {
		return 0
	}
	return float64(s.Bytes) / s.NsPerOp * 1e3
}

func scale(s bench.Spread, k float64) bench.Spread {
	return bench.Spread{Min: s.Min * k, Median: s.Median * k, Max: s.Max * k, N: s.N}
}

func spread(s bench.Spread, f, unit string) string {
	if s.N <= 1 {
		return fmt.Sprintf(f, s.Median) + unit
	}
	return fmt.Sprintf(f+" / "+f+" / "+f, s.Min, s.Median, s.Max) + unit
}

// cpuVerdict says how the target fares when the figure is taken in CPU
// time, which tells a cost of the code from time lost to other processes
// on a loaded machine.
func cpuVerdict(met bool, figure string) string {
	if met {
		return "in CPU time met (" + figure + ")"
	}
	return "in CPU time missed too (" + figure + ")"
}

// verdictMax: the figure must not exceed the target.
func verdictMax(v, target float64, unit string) string {
	if v <= target {
		return "met"
	}
	return fmt.Sprintf("**missed** by %.0f%% (%.3g%s)", (v/target-1)*100, v, unit)
}

// verdictMin: the figure must reach the target.
func verdictMin(v, target float64, unit string) string {
	if v >= target {
		return "met"
	}
	return fmt.Sprintf("**missed**: %.3g%s, %.1f× short", v, unit, target/v)
}

func sizeLabel(s stage, n int) string {
	switch s.name {
	case "verify":
		return fmt.Sprintf("%s events + %d MiB", thousands(n), n/100)
	case "store", "store-nosync":
		if n >= 1024 {
			return fmt.Sprintf("%d GiB", n/1024)
		}
		return fmt.Sprintf("%d MiB", n)
	case "issuance":
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return thousands(n) + " " + s.unit
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fmtDur(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func mib(b int64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func lastElem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// shortFunc trims the module path from a profile's function name.
func shortFunc(name string) string {
	name = strings.ReplaceAll(name, "github.com/agentlab/agentlab/", "")
	return strings.ReplaceAll(name, "github.com/", "")
}
