// Command mutation measures how many small source changes (mutants) the
// tests of one package notice. Each sampled mutant is compiled from a copy of
// its file handed to `go test -overlay`, so the work tree is never changed,
// not even when the run is interrupted. See docs/testing.md.
//
//	go run ./scripts/mutation -n 60 -seed 1 ./chain
//
// Where it fits: docs/architecture.md#supporting-packages.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 60, "mutants to sample (that compile); 0 means all")
	seed := flag.Uint64("seed", 1, "seed of the sample, recorded so a score can be measured again")
	timeout := flag.Duration("timeout", 0, "time allowed per mutant (default: 3× the clean test run + 60s)")
	line := flag.String("line", "", "run every mutant of FILE:LINE (relative to the module root) instead of a sample")
	list := flag.Bool("list", false, "print the sampled mutants without running them")
	testflags := flag.String("testflags", "", "extra `go test` flags, e.g. \"-short -skip Browser\"")
	quick := flag.String("quick", "", "`go test` flags of a first, faster pass (e.g. \"-short\"); only a mutant it does not kill runs the whole suite")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mutation [-n N] [-seed S] [-timeout D] [-line FILE:LINE] [-list] [-testflags FLAGS] [-quick FLAGS] PACKAGE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := config{pkg: flag.Arg(0), n: *n, seed: *seed, timeout: *timeout, line: *line, list: *list,
		testflags: strings.Fields(*testflags), quick: strings.Fields(*quick)}
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		os.Exit(1)
	}
}

type config struct {
	pkg       string
	n         int
	seed      uint64
	timeout   time.Duration
	line      string
	list      bool
	testflags []string
	// quick, when set, are the flags of a first pass over the mutant (the
	// tests without the browser ones, say): a kill there is a kill of the
	// whole suite too, and only the mutants it lets through pay for the
	// whole suite.
	quick []string
}

// pkgInfo is what `go list` says about the package under test.
type pkgInfo struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Module     struct{ Dir string }
}

func run(ctx context.Context, cfg config) error {
	info, err := listPackage(ctx, cfg.pkg)
	if err != nil {
		return err
	}
	all, err := collect(info)
	if err != nil {
		return err
	}
	root := info.Module.Dir
	var pool []mutant
	if cfg.line != "" {
		for _, m := range all {
			if w := m.where(root); strings.HasPrefix(w, cfg.line+":") {
				pool = append(pool, m)
			}
		}
		if len(pool) == 0 {
			return fmt.Errorf("no mutant at %s; give FILE:LINE relative to %s", cfg.line, root)
		}
	} else {
		pool = shuffled(all, cfg.seed)
	}
	if cfg.list {
		for _, m := range pool {
			fmt.Printf("%s %s\n", m.where(root), m.describe())
		}
		return nil
	}

	tmp, err := os.MkdirTemp("", "mutation-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Printf("package %s: %d possible mutants, seed %d\n", info.ImportPath, len(all), cfg.seed)
	start := time.Now()
	// A test that flakes under load (a browser test on a busy machine) would
	// stop the run; the clean run is tried three times before giving up.
	var base result
	for try := 0; try < 3 && base.outcome != survived && ctx.Err() == nil; try++ {
		start = time.Now()
		base = goTest(ctx, info.ImportPath, "", cfg.testflags, 30*time.Minute)
	}
	if base.outcome != survived {
		return fmt.Errorf("the tests of %s fail without any mutant:\n%s", info.ImportPath, base.output)
	}
	if len(cfg.quick) > 0 {
		// a quick pass that fails on the clean sources would kill every mutant
		q := goTest(ctx, info.ImportPath, "", append(append([]string{}, cfg.testflags...), cfg.quick...), 30*time.Minute)
		if q.outcome != survived {
			return fmt.Errorf("the quick pass (%s) of %s fails without any mutant:\n%s", strings.Join(cfg.quick, " "), info.ImportPath, q.output)
		}
		fmt.Printf("quick pass %s: clean run %.1fs\n", strings.Join(cfg.quick, " "), q.took.Seconds())
	}
	limit := cfg.timeout
	if limit == 0 {
		limit = 3*time.Since(start) + 60*time.Second
	}
	fmt.Printf("clean run %.1fs; %s allowed per mutant\n", time.Since(start).Seconds(), limit.Round(time.Second))

	var tally tally
	for _, m := range pool {
		if ctx.Err() != nil {
			fmt.Println("interrupted")
			break
		}
		if cfg.line == "" && cfg.n > 0 && tally.viable() >= cfg.n {
			break
		}
		r, err := tryQuickFirst(ctx, info.ImportPath, tmp, m, cfg, limit)
		if err != nil {
			return err
		}
		tally.add(m, r)
		if r.outcome != unviable {
			fmt.Printf("[%d] %-8s %s %s (%.1fs)\n", tally.viable(), r.outcome, m.where(root), m.describe(), r.took.Seconds())
		}
	}
	tally.print(os.Stdout, root, info.ImportPath, cfg.seed)
	return nil
}

func listPackage(ctx context.Context, pkg string) (pkgInfo, error) {
	var info pkgInfo
	out, err := exec.CommandContext(ctx, "go", "list", "-json", pkg).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return info, fmt.Errorf("go list %s: %s", pkg, ee.Stderr)
		}
		return info, err
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return info, err
	}
	if info.Module.Dir == "" {
		return info, fmt.Errorf("%s is not in a module", pkg)
	}
	return info, nil
}

// collect lists the mutants of the package's non-test, non-generated files
// that the current build includes.
func collect(info pkgInfo) ([]mutant, error) {
	var all []mutant
	for _, name := range info.GoFiles {
		path := filepath.Join(info.Dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(src, []byte("// Code generated")) {
			continue
		}
		ms, err := mutantsOf(path, src)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	return all, nil
}

// shuffled is the sampling order: the same seed and sources give the same order.
func shuffled(all []mutant, seed uint64) []mutant {
	out := append([]mutant(nil), all...)
	r := rand.New(rand.NewPCG(seed, 0x6d757461)) // "muta"
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// tryQuickFirst runs the quick pass when one is configured and the whole
// suite only when the quick pass does not kill the mutant. A mutant that
// does not compile is found by the quick pass already.
func tryQuickFirst(ctx context.Context, pkg, tmp string, m mutant, cfg config, limit time.Duration) (result, error) {
	if len(cfg.quick) == 0 {
		return try(ctx, pkg, tmp, m, cfg.testflags, limit)
	}
	q, err := try(ctx, pkg, tmp, m, append(append([]string{}, cfg.testflags...), cfg.quick...), limit)
	if err != nil || q.outcome == killed || q.outcome == timedOut || q.outcome == unviable {
		return q, err
	}
	r, err := try(ctx, pkg, tmp, m, cfg.testflags, limit)
	r.took += q.took
	return r, err
}

// try runs the package's tests against one mutant.
func try(ctx context.Context, pkg, tmp string, m mutant, testflags []string, limit time.Duration) (result, error) {
	src, err := os.ReadFile(m.file)
	if err != nil {
		return result{}, err
	}
	mutated := filepath.Join(tmp, "mutant.go")
	if err := os.WriteFile(mutated, m.apply(src), 0o600); err != nil {
		return result{}, err
	}
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{m.file: mutated}})
	if err != nil {
		return result{}, err
	}
	ovl := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovl, overlay, 0o600); err != nil {
		return result{}, err
	}
	r := goTest(ctx, pkg, ovl, testflags, limit)
	if r.outcome != killed {
		return r, nil
	}
	// A test that flakes (a browser test on a busy machine) must not count
	// as a kill: the tests that failed run again on the mutant, alone, and
	// must fail again.
	failed := failedTests(r.output)
	if len(failed) == 0 {
		return r, nil
	}
	again := goTest(ctx, pkg, ovl, append(append([]string{}, testflags...), "-run", "^("+strings.Join(failed, "|")+")$"), limit)
	if again.outcome == survived {
		r.outcome = flaky
	}
	return r, nil
}

// failedTests lists the top-level tests that failed in go test output.
func failedTests(out string) []string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(l, "--- FAIL: "); ok {
			if f := strings.Fields(name); len(f) > 0 {
				names = append(names, regexp.QuoteMeta(f[0]))
			}
		}
	}
	return names
}
