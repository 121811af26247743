//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentlab/agentlab/bench"
)

type options struct {
	smoke    bool
	count    int
	out      string
	doc      string
	profiles int
	only     string
	stages   map[string]bool
	skipped  []string // notes on stages left out (a floor's tool is missing)
}

// kind says how a stage's figure compares with its floor and its target.
type kind int

const (
	// timeRatio: work time ÷ floor time must stay under target (×).
	timeRatio kind = iota
	// perUnit: work time per unit (node) must stay under target (ms).
	perUnit
	// throughputRatio: work MB/s ÷ floor MB/s must reach target (fraction).
	throughputRatio
	// throughputAbs: work MB/s must reach target (MB/s).
	throughputAbs
	// info: reported, no target of its own.
	info
)

// stage is one line of the summary table.
type stage struct {
	name     string
	title    string // what is measured
	floor    string // what the floor is
	unit     string // what size counts
	sizes    []int  // full run; the budget size is budget
	smoke    []int
	budget   int
	smokeBud int
	kind     kind
	target   float64
	targetS  string
	scale    bool   // part of the scaling table
	env      string // extra environment for the children
	// needs names an environment variable the floor needs (the path of
	// a peer tool); without it the stage is left out, with a note.
	needs string
	// memTarget, when set, is the most the work's peak RSS may be, as a
	// multiple of the floor's, at every size.
	memTarget float64
}

func stages() []stage {
	return []stage{
		{name: "compile", title: "lint + compile a flow", floor: "yaml.v3 parse of the same file into nodes", unit: "nodes",
			sizes: []int{1_000, 10_000, 100_000}, smoke: []int{500, 5_000}, budget: 10_000, smokeBud: 5_000,
			kind: timeRatio, target: 3, targetS: "≤ 3× floor", scale: true, memTarget: 2},
		{name: "engine-chain", title: "run transform nodes in a chain on the mock", floor: "the same number of bare event appends", unit: "nodes",
			sizes: []int{100, 1_000, 10_000}, smoke: []int{100, 1_000}, budget: 1_000, smokeBud: 1_000,
			kind: perUnit, target: 1, targetS: "≤ 1 ms per node", scale: true},
		{name: "engine-fan", title: "run transform nodes as fan-out/fan-in on the mock", floor: "the same number of bare event appends", unit: "nodes",
			sizes: []int{1_000}, smoke: []int{1_000}, budget: 1_000, smokeBud: 1_000,
			kind: perUnit, target: 1, targetS: "≤ 1 ms per node"},
		{name: "store", title: "store write + read-back, 1 MiB blobs, fsync on", floor: "durable write + read of the same bytes, no hash (temp file, write, fsync, rename, fsync dir, read)", unit: "MiB",
			sizes: []int{1024}, smoke: []int{32}, budget: 1024, smokeBud: 32,
			kind: throughputRatio, target: 0.8, targetS: "≥ 80% of floor"},
		{name: "store-nosync", title: "the same with fsync off (`SetSync(false)`)", floor: "the same write + read with no fsync", unit: "MiB",
			sizes: []int{1024}, smoke: []int{32}, budget: 1024, smokeBud: 32,
			kind: info, target: 0.8, targetS: "(reference)"},
		{name: "verify", title: "`verify` a run directory (events + 1 MiB artifacts, page cache warm)", floor: "`b3sum` over the same files (every core, mmap)", unit: "events",
			sizes: []int{1_000, 10_000, 100_000}, smoke: []int{1_000, 10_000}, budget: 100_000, smokeBud: 10_000,
			kind: throughputRatio, target: 0.9, targetS: "≥ 90% of floor", scale: true},
		{name: "bundle", title: "`bundle.html` of traceable-weekly verifies itself in headless Chromium (navigation to verdict)", floor: "the same file without its script (navigation to load)", unit: "loads",
			sizes: []int{9}, smoke: []int{3}, budget: 9, smokeBud: 3,
			kind: timeRatio, target: 5, targetS: "≤ 5× floor"},
		{name: "issuance", title: "issuance checker on a narrative, one core", floor: "a byte loop counting the digit runs of the same text", unit: "bytes",
			sizes: []int{1 << 20}, smoke: []int{1 << 20}, budget: 1 << 20, smokeBud: 1 << 20,
			kind: throughputAbs, target: 20, targetS: "≥ 20 MB/s", env: "GOMAXPROCS=1"},
		{name: "startup-version", title: "`agentlab version`, a whole process", floor: "`actionlint -version`", unit: "process",
			sizes: []int{1}, smoke: []int{1}, budget: 1, smokeBud: 1,
			kind: timeRatio, target: 2, targetS: "≤ 2× floor", needs: startupEnv},
		{name: "startup-lint", title: "`agentlab lint` of one small flow, a whole process", floor: "`actionlint` of one small workflow", unit: "process",
			sizes: []int{1}, smoke: []int{1}, budget: 1, smokeBud: 1,
			kind: timeRatio, target: 2, targetS: "≤ 2× floor", needs: startupEnv},
	}
}

func (s *stage) sizesFor(o *options) []int {
	if o.smoke {
		return s.smoke
	}
	return s.sizes
}

func (s *stage) budgetFor(o *options) int {
	if o.smoke {
		return s.smokeBud
	}
	return s.budget
}

// pair is one repetition of one stage at one size: its work and its floor.
type pair struct{ work, floor *sample }

// results holds every pair by stage and size.
type results map[string]map[int][]pair

func orchestrate(o *options) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	out, _ := filepath.Abs(o.out)
	work := filepath.Join(out, "work")
	os.RemoveAll(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	m := bench.Describe(work)
	fmt.Printf("machine: %d cores, %s (AVX-512: %v), %s, writes to %s, load %s\n", m.Cores, m.CPU, m.AVX512, m.Go, m.FS, m.Load)

	var sts []stage
	for _, s := range stages() {
		if o.stages != nil && !o.stages[s.name] {
			continue
		}
		if why := bundleAvailable(); s.name == "bundle" && why != "" {
			fmt.Printf("note: no bundle figure: %s\n", why)
			continue
		}
		if s.needs != "" && os.Getenv(s.needs) == "" {
			o.skipped = append(o.skipped, fmt.Sprintf("%s: not measured, %s is not set (bench/run.sh sets it when it can install the floor's tool; see its output)", s.name, s.needs))
			continue
		}
		sts = append(sts, s)
	}
	fmt.Println("generating inputs…")
	for _, s := range sts {
		for _, n := range s.sizesFor(o) {
			if err := generate(s, n, dirOf(work, s, n)); err != nil {
				return fmt.Errorf("generate %s at %d: %w", s.name, n, err)
			}
		}
	}
	minDur := 300 * time.Millisecond
	if o.smoke {
		minDur = 50 * time.Millisecond
	}
	res := results{}
	for rep := 1; rep <= o.count; rep++ {
		for _, s := range sts {
			for _, n := range s.sizesFor(o) {
				p, err := measurePair(self, s, n, dirOf(work, s, n), minDur, "")
				if err != nil {
					return err
				}
				if res[s.name] == nil {
					res[s.name] = map[int][]pair{}
				}
				res[s.name][n] = append(res[s.name][n], p)
				fmt.Printf("  rep %d/%d %-13s %9d %-6s work %s  floor %s  rss %s / %s\n", rep, o.count, s.name, n, s.unit,
					fmtDur(p.work.NsPerOp), fmtDur(p.floor.NsPerOp), mib(p.work.RSS), mib(p.floor.RSS))
			}
		}
	}
	var profs []profile
	if o.profiles > 0 {
		profs, err = runProfiles(self, o, sts, res, work, out, minDur)
		if err != nil {
			return err
		}
	}
	md := render(o, m, sts, res, profs)
	fmt.Println()
	fmt.Println(md)
	if err := os.WriteFile(filepath.Join(out, "summary.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if o.doc != "" && !o.smoke {
		b, err := os.ReadFile(o.doc)
		if err != nil {
			return err
		}
		nd, err := bench.ReplaceSection(string(b), md)
		if err != nil {
			return fmt.Errorf("%s: %w", o.doc, err)
		}
		if err := os.WriteFile(o.doc, []byte(nd), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote the summary to", o.doc)
	}
	return nil
}

func dirOf(work string, s stage, n int) string {
	return filepath.Join(work, s.name+"-"+strconv.Itoa(n))
}

// generate writes the inputs a stage reads at size n.
func generate(s stage, n int, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	switch s.name {
	case "compile":
		if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(bench.CSVSource), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "big.flow.yml"), bench.CompileFlow(n), 0o644)
	case "engine-chain":
		return os.WriteFile(filepath.Join(dir, "flow.yml"), bench.ChainFlow(n), 0o644)
	case "engine-fan":
		return os.WriteFile(filepath.Join(dir, "flow.yml"), bench.FanFlow(n), 0o644)
	case "startup-version", "startup-lint":
		return writeStartupInputs(dir)
	case "verify":
		g, err := bench.WriteRun(filepath.Join(dir, "data"), bench.RunSpec{ID: "bench-" + strconv.Itoa(n),
			Events: n, Blobs: n / 100, BlobSize: 1 << 20})
		if err != nil {
			return err
		}
		b, err := json.Marshal(g)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "run.json"), b, 0o644)
	case "bundle":
		return generateBundle(dir)
	}
	return nil // store and issuance generate their bytes in the child
}

// measurePair runs the work and then the floor of one repetition, each in
// its own child process.
func measurePair(self string, s stage, n int, dir string, minDur time.Duration, cpuprofile string) (pair, error) {
	w, err := child(self, s, "work", n, dir, minDur, 0, cpuprofile)
	if err != nil {
		return pair{}, err
	}
	if cpuprofile != "" {
		return pair{work: w}, nil
	}
	events := 0
	if w.Extra != nil {
		events = int(w.Extra["events"])
	}
	f, err := child(self, s, "floor", n, dir, minDur, events, "")
	if err != nil {
		return pair{}, err
	}
	if strings.HasPrefix(s.name, "store") {
		os.RemoveAll(filepath.Join(dir, "store"))
	}
	return pair{w, f}, nil
}

// child runs `self child …` and returns its sample.
func child(self string, s stage, part string, n int, dir string, minDur time.Duration, events int, cpuprofile string) (*sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := []string{"child", "-stage", s.name, "-part", part, "-size", strconv.Itoa(n), "-dir", dir,
		"-min", minDur.String(), "-events", strconv.Itoa(events)}
	if cpuprofile != "" {
		args = append(args, "-cpuprofile", cpuprofile)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = os.Environ()
	if s.env != "" {
		cmd.Env = append(cmd.Env, s.env)
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s at %d: %v\n%s", s.name, part, n, err, stderr.String())
	}
	var smp sample
	if err := json.Unmarshal(stdout.Bytes(), &smp); err != nil {
		return nil, fmt.Errorf("%s %s at %d: bad output %q: %v", s.name, part, n, stdout.String(), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && smp.RSS == 0 {
		smp.RSS = ru.Maxrss * 1024 // kilobytes on Linux; an upper bound (see peakRSS)
	}
	return &smp, nil
}

// profile is the CPU profile of one stage's work at its budget size.
type profile struct {
	stage string
	path  string
	top   []topEntry // by flat time
	cum   []topEntry // the project's own functions by cumulative time
	raw   string
}

// ownCode reports whether a profile entry is a function of the project
// (not of the benchmark driver, the runtime or a dependency).
func ownCode(name string) bool {
	return strings.HasPrefix(name, "github.com/agentlab/agentlab/") && !strings.HasPrefix(name, "github.com/agentlab/agentlab/bench")
}

type topEntry struct {
	flat, cum string
	name      string
}

// runProfiles profiles the work of the o.profiles stages that are slowest
// relative to their floor (median work time ÷ floor time at the budget
// size) and reads the top entries with `go tool pprof`.
func runProfiles(self string, o *options, sts []stage, res results, work, out string, minDur time.Duration) ([]profile, error) {
	type cand struct {
		s stage
		r float64
	}
	var cs []cand
	for _, s := range sts {
		if s.kind == info {
			continue // a variant of another stage
		}
		if s.name == "bundle" || strings.HasPrefix(s.name, "startup-") {
			continue // its time is spent in other processes (the browser, a whole agentlab), which a profile of this process does not see
		}
		ps := res[s.name][s.budgetFor(o)]
		var w, f []float64
		for _, p := range ps {
			w, f = append(w, p.work.NsPerOp), append(f, p.floor.NsPerOp)
		}
		cs = append(cs, cand{s, bench.Summarize(bench.Ratios(w, f)).Median})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].r > cs[j].r })
	goTool, lookErr := exec.LookPath("go")
	var profs []profile
	for _, c := range cs[:min(o.profiles, len(cs))] {
		n := c.s.budgetFor(o)
		path := filepath.Join(out, "cpu-"+c.s.name+".pprof")
		fmt.Printf("profiling %s at %d %s (%.1f× its floor)…\n", c.s.name, n, c.s.unit, c.r)
		// a longer loop than the measurements, so the profile has enough samples
		if _, err := measurePair(self, c.s, n, dirOf(work, c.s, n), max(minDur, 2*time.Second), path); err != nil {
			return nil, err
		}
		if strings.HasPrefix(c.s.name, "store") {
			os.RemoveAll(filepath.Join(dirOf(work, c.s, n), "store"))
		}
		p := profile{stage: c.s.name, path: path}
		if lookErr == nil {
			txt, err := exec.Command(goTool, "tool", "pprof", "-tagignore=bench=setup", "-top", "-nodecount=25", self, path).Output()
			if err == nil {
				p.raw = string(txt)
				p.top = parseTop(p.raw)
				os.WriteFile(strings.TrimSuffix(path, ".pprof")+".top.txt", txt, 0o644)
			}
			txt, err = exec.Command(goTool, "tool", "pprof", "-tagignore=bench=setup", "-top", "-cum", "-nodecount=80", self, path).Output()
			if err == nil {
				os.WriteFile(strings.TrimSuffix(path, ".pprof")+".cum.txt", txt, 0o644)
				for _, e := range parseTop(string(txt)) {
					if ownCode(e.name) && len(p.cum) < 4 {
						p.cum = append(p.cum, e)
					}
				}
			}
		}
		fmt.Printf("  top of %s:\n", path)
		for _, e := range p.top[:min(10, len(p.top))] {
			fmt.Printf("    %7s flat %7s cum  %s\n", e.flat, e.cum, e.name)
		}
		profs = append(profs, p)
	}
	return profs, nil
}

// parseTop reads the entries of `go tool pprof -top`: lines of
// "flat flat% sum% cum cum% name".
func parseTop(s string) []topEntry {
	var out []topEntry
	inTable := false
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == "flat" && f[1] == "flat%" {
			inTable = true
			continue
		}
		if !inTable || len(f) < 6 || !strings.HasSuffix(f[1], "%") {
			continue
		}
		out = append(out, topEntry{flat: f[1], cum: f[4], name: strings.Join(f[5:], " ")})
	}
	return out
}
