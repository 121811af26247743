package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

func init() { register("doctor", newDoctorCmd) }

// Doctor findings have one of three severities; any "error" makes the
// section fail and doctor exit 1.
const (
	sevError   = "error"
	sevWarning = "warning"
	sevInfo    = "info"
)

// doctorFinding is one line of a section: what was seen and the exact
// command that investigates or repairs it.
type doctorFinding struct {
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Command  string `json:"command,omitempty"`
	// Diagnostic is set when the finding is a diagnostic of a file (a
	// table of agentlab.toml): its file, line, column, code and fix, in the
	// shape of the diagnostics JSON.
	Diagnostic *diag.Diagnostic `json:"diagnostic,omitempty"`
}

// doctorResult is what a section reports. Status is derived from the
// findings: "fail" with any error, "warn" with any warning, else "ok".
type doctorResult struct {
	Name     string          `json:"name"`
	Status   string          `json:"status"`
	Summary  string          `json:"summary"`
	Findings []doctorFinding `json:"findings"`
}

// doctorSection is one area doctor examines. Sections run in order of
// `order`; other command files add theirs (sandbox backends, providers…)
// from init with addDoctorSection.
type doctorSection struct {
	name  string
	order int
	run   func(env *doctorEnv) doctorResult
}

// doctorSections lists every section; see addDoctorSection.
var doctorSections = []doctorSection{
	{name: "runs", order: 10, run: doctorRuns},
	{name: "store", order: 20, run: doctorStore},
}

// addDoctorSection registers a section; call it from init.
func addDoctorSection(s doctorSection) { doctorSections = append(doctorSections, s) }

// doctorEnv is shared by the sections of one doctor invocation; it reads
// the runs once for every section that needs them.
type doctorEnv struct {
	dataDir string
	// storeURL is --store: the shared store to check besides the one the
	// environment or the config files name.
	storeURL string
	scanned  bool
	runs     []scannedRun
	runsErr  error
}

type scannedRun struct {
	id   string
	snap *runlog.Snapshot
	err  error
}

// scanRuns reads every run directory without locking it.
func (env *doctorEnv) scanRuns() ([]scannedRun, error) {
	if env.scanned {
		return env.runs, env.runsErr
	}
	env.scanned = true
	ents, err := os.ReadDir(runlog.RunsDir(env.dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		env.runsErr = err
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() || runlog.CheckID(e.Name()) != nil {
			continue
		}
		snap, err := runlog.OpenReadOnly(env.dataDir, e.Name())
		env.runs = append(env.runs, scannedRun{id: e.Name(), snap: snap, err: err})
	}
	return env.runs, nil
}

func newDoctorCmd() *cobra.Command {
	var format, dirFlag, storeFlag string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report what this machine offers and the health of the data dir",
		Long: `Report what this machine offers and the health of the data directory.

The store check re-hashes every artifact (a failure is retried once to tell a
flaky read from corruption), finds temp files left by interrupted writes, and
compares the artifacts with those the runs reference: missing and corrupt
artifacts are errors, orphaned ones (referenced by no run) are warnings. Every
run's event chain and seal are verified; a sealed run whose report.html or
bundle.html is missing, temp files left in a run's directory or out
directory, and run directories left half-created (runs/.tmp-*) are warnings.
Each finding comes with the command that investigates or repairs it.

The config check reads every table of the agentlab.toml nearest the working
directory ([permissions], [http_fetch], [mcp], [providers], [ptc]) and of the
user's config.toml, including those a run reads only when it needs them
([mcp] for a flow that names an MCP tool, [providers] for a remote provider),
and reports each problem with its file, line, column, code and fix; in
--format json each such finding also carries a "diagnostic" object. An
AGENTLAB_SANDBOX value that names no backend is reported too.

The shared store check (with --store, AGENTLAB_STORE or [store] url) writes
and deletes a probe object: it reports whether the bucket answers with these
credentials and whether the server honours conditional PUTs.

Exit codes: 0 healthy (warnings allowed), 1 problems found, 2 usage.

Examples:
  agentlab doctor
  agentlab doctor --data-dir /srv/agentlab --format json
  agentlab doctor --store "s3://runs/agentlab?endpoint=http://127.0.0.1:7070&path_style=true"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			env := &doctorEnv{dataDir: dataDir(dirFlag), storeURL: storeFlag}
			results := runDoctor(env)
			ok := true
			for _, r := range results {
				ok = ok && r.Status != "fail"
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(struct {
					OK       bool           `json:"ok"`
					DataDir  string         `json:"data_dir"`
					Sections []doctorResult `json:"sections"`
				}{ok, env.dataDir, results}); err != nil {
					return err
				}
			} else {
				printDoctor(out, env.dataDir, results, out == os.Stdout && useColor(os.Stdout))
			}
			if !ok {
				return exitCode(exitFailed)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	cmd.Flags().StringVar(&dirFlag, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	cmd.Flags().StringVar(&storeFlag, "store", "", "check this "+storeHelp)
	return cmd
}

// runDoctor runs every section in order and settles each one's status.
func runDoctor(env *doctorEnv) []doctorResult {
	secs := append([]doctorSection(nil), doctorSections...)
	sort.SliceStable(secs, func(i, j int) bool { return secs[i].order < secs[j].order })
	var out []doctorResult
	for _, s := range secs {
		r := s.run(env)
		r.Name = s.name
		r.Status = "ok"
		for _, f := range r.Findings {
			switch {
			case f.Severity == sevError:
				r.Status = "fail"
			case f.Severity == sevWarning && r.Status == "ok":
				r.Status = "warn"
			}
		}
		if r.Findings == nil {
			r.Findings = []doctorFinding{}
		}
		out = append(out, r)
	}
	return out
}

// With color, a failed section is red, a warning yellow, and "NO
// ISOLATION" (code running under the process backend) red wherever it
// appears, so that unsandboxed code cannot be overlooked.
func printDoctor(w io.Writer, dir string, results []doctorResult, color bool) {
	paint := func(s string) string { return s }
	status := func(s string) string { return fmt.Sprintf("%-4s", s) }
	if color {
		paint = func(s string) string { return strings.ReplaceAll(s, "NO ISOLATION", "\x1b[1;31mNO ISOLATION\x1b[0m") }
		status = func(s string) string {
			switch s {
			case "FAIL":
				return "\x1b[31mFAIL\x1b[0m"
			case "WARN":
				return "\x1b[33mWARN\x1b[0m"
			}
			return fmt.Sprintf("%-4s", s)
		}
	}
	fmt.Fprintf(w, "data dir: %s\n", dir)
	for _, r := range results {
		fmt.Fprintf(w, "%-8s %s  %s\n", r.Name, status(strings.ToUpper(r.Status)), paint(r.Summary))
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  %s: %s\n", f.Severity, paint(f.Message))
			if f.Diagnostic != nil && f.Diagnostic.Fix != "" {
				fmt.Fprintf(w, "    fix: %s\n", f.Diagnostic.Fix)
			}
			if f.Command != "" {
				fmt.Fprintf(w, "    → %s\n", f.Command)
			}
		}
	}
}

// doctorRuns verifies every run's event chain and, for sealed runs, that
// the recorded seal still matches the events.
func doctorRuns(env *doctorEnv) doctorResult {
	runs, err := env.scanRuns()
	if err != nil {
		return doctorResult{Summary: "cannot list runs", Findings: []doctorFinding{{
			Severity: sevError, Message: err.Error(), Command: "ls -ld " + shellQuote(runlog.RunsDir(env.dataDir)),
		}}}
	}
	var fs []doctorFinding
	if ents, err := os.ReadDir(runlog.RunsDir(env.dataDir)); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".tmp-") {
				p := filepath.Join(runlog.RunsDir(env.dataDir), e.Name())
				fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("%s was left by a run killed while it was being created; it holds nothing to resume", p), Command: "rm -r " + shellQuote(p)})
			}
		}
	}
	if len(runs) == 0 {
		return doctorResult{Summary: "no runs yet", Findings: fs}
	}
	sealed := 0
	for _, r := range runs {
		verify := "agentlab verify " + shellQuote(filepath.Join(runlog.RunsDir(env.dataDir), r.id))
		if r.err != nil {
			fs = append(fs, doctorFinding{Severity: sevError, Message: fmt.Sprintf("run %s cannot be read: %v", r.id, r.err), Command: verify})
			continue
		}
		s := r.snap
		for _, p := range s.Problems {
			fs = append(fs, doctorFinding{Severity: sevError, Message: fmt.Sprintf("run %s: %s", r.id, p), Command: verify})
		}
		if s.Torn != nil {
			fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("run %s: events.jsonl ends in an incomplete line (%d bytes at offset %d, an interrupted write); resuming the run sets it aside", r.id, s.Torn.Bytes, s.Torn.Offset), Command: "agentlab resume " + r.id})
		}
		if s.Record.Status == runlog.StatusRunning {
			if locked, _, err := runlog.Holder(env.dataDir, r.id); err == nil && !locked {
				fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("run %s says it is running, but no process has it open: it was interrupted", r.id), Command: "agentlab resume " + r.id})
			}
		}
		if !s.HasRecord {
			fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("run %s has no run.json (interrupted right after it was created)", r.id), Command: "agentlab runs events " + r.id})
		}
		if s.Record.Seal != "" && len(s.Problems) == 0 {
			sealed++
			if msg := checkRecordedSeal(r.id, s); msg != "" {
				fs = append(fs, doctorFinding{Severity: sevError, Message: fmt.Sprintf("run %s: %s", r.id, msg), Command: verify})
			}
			// Only runs of flows have pages (an evaluation's record has
			// none): their checkpoint names an out directory.
			if msg := missingPages(s.Record); msg != "" && runOutDir(s) != "" {
				fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("run %s is sealed but %s (interrupted between the seal and writing them)", r.id, msg), Command: "agentlab resume " + r.id})
			}
		}
		fs = append(fs, leftoverTemps(r.id, s)...)
	}
	return doctorResult{Summary: fmt.Sprintf("%s, %d sealed", plural(len(runs), "run"), sealed), Findings: fs}
}

// missingPages says which of a sealed run's report.html and bundle.html
// run.json does not record or that are gone; "" when both are there.
func missingPages(rec runlog.Record) string {
	var gone []string
	for _, p := range []struct{ name, path string }{{"report.html", rec.Report}, {"bundle.html", rec.Bundle}} {
		if p.path == "" {
			gone = append(gone, p.name+" was not written")
		} else if _, err := os.Stat(p.path); err != nil {
			gone = append(gone, p.name+" is missing ("+p.path+")")
		}
	}
	return strings.Join(gone, " and ")
}

// leftoverTemps lists the temporary files an interrupted atomic write left
// in a run's directory and in its out directory: whole files are only ever
// renamed into place, so a temp file is never part of the run and can go.
func leftoverTemps(runID string, s *runlog.Snapshot) []doctorFinding {
	dirs := []string{s.Dir}
	if out := runOutDir(s); out != "" {
		dirs = append(dirs, out)
	}
	var fs []doctorFinding
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if n := e.Name(); strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-") {
				p := filepath.Join(d, n)
				fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("run %s: %s is a temporary file left by an interrupted write", runID, p), Command: "rm " + shellQuote(p)})
			}
		}
	}
	return fs
}

// runOutDir is the out directory a run's checkpoint names ("" for a run
// without one, such as an evaluation's record).
func runOutDir(s *runlog.Snapshot) string {
	var cp struct {
		OutDir string `json:"out_dir"`
	}
	b, err := fsutil.ReadFileCapped(filepath.Join(s.Dir, runlog.CheckpointFile), 1<<20, "")
	if err != nil || json.Unmarshal(b, &cp) != nil {
		return ""
	}
	return cp.OutDir
}

// checkRecordedSeal recomputes a sealed run's seal from its events.
func checkRecordedSeal(runID string, s *runlog.Snapshot) string {
	seal, err := chain.ComputeSeal(runID, s.Record.Plan, s.Events)
	if err != nil {
		return "cannot recompute the seal: " + err.Error()
	}
	h, err := seal.Hash()
	if err != nil {
		return "cannot hash the seal: " + err.Error()
	}
	if h.String() != s.Record.Seal {
		return fmt.Sprintf("seal %s in run.json does not match the events (they seal to %s)", s.Record.Seal, h)
	}
	return ""
}

// doctorStore re-hashes every artifact and compares the store with what
// the runs reference.
func doctorStore(env *doctorEnv) doctorResult {
	dir := runlog.ArtifactsDir(env.dataDir)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return doctorResult{Summary: "no artifacts yet (" + dir + " is created by the first run)"}
	}
	var st store.Checker
	st, err := store.OpenFileStore(dir)
	if err != nil {
		return doctorResult{Summary: "cannot open the store", Findings: []doctorFinding{{Severity: sevError, Message: err.Error(), Command: "ls -ld " + shellQuote(dir)}}}
	}
	// users maps each referenced artifact to the runs that reference it.
	users := map[hashid.ID][]string{}
	runs, _ := env.scanRuns() // doctorRuns reports a listing error
	complete := true
	for _, r := range runs {
		if r.err != nil {
			complete = false // its references are unknown: orphans cannot be told
			continue
		}
		refs := r.snap.Artifacts(st)
		for _, s := range refs {
			id, err := hashid.Parse(s)
			if err != nil {
				continue
			}
			if u := users[id]; len(u) == 0 || u[len(u)-1] != r.id {
				users[id] = append(u, r.id)
			}
		}
	}
	var referenced map[hashid.ID]bool
	if complete {
		referenced = make(map[hashid.ID]bool, len(users))
		for id := range users {
			referenced[id] = true
		}
	}
	rep, err := st.Check(referenced)
	if err != nil {
		return doctorResult{Summary: "cannot walk the store", Findings: []doctorFinding{{Severity: sevError, Message: err.Error(), Command: "ls -lR " + shellQuote(dir)}}}
	}
	runDir := func(id string) string { return filepath.Join(runlog.RunsDir(env.dataDir), id) }
	usedBy := func(id hashid.ID) (string, string) {
		u := users[id]
		if len(u) == 0 {
			return "referenced by no run", ""
		}
		return "referenced by run " + strings.Join(u, ", "), "agentlab verify " + shellQuote(runDir(u[0]))
	}
	var fs []doctorFinding
	for _, f := range rep.Corrupt {
		who, cmd := usedBy(f.ID)
		if cmd == "" {
			cmd = "rm -f " + shellQuote(f.Path) // nothing depends on it
		}
		fs = append(fs, doctorFinding{Severity: sevError, Message: fmt.Sprintf("artifact %s is corrupt (%s); %s", f.Blob, f.Message, who), Command: cmd})
	}
	for _, f := range rep.Unreadable {
		fs = append(fs, doctorFinding{Severity: sevError, Message: fmt.Sprintf("artifact %s cannot be read: %s", f.Blob, f.Message), Command: "ls -l " + shellQuote(f.Path)})
	}
	for _, f := range rep.Missing {
		who, cmd := usedBy(f.ID)
		fs = append(fs, doctorFinding{Severity: sevError, Message: fmt.Sprintf("artifact %s is missing; %s", f.Blob, who), Command: cmd})
	}
	for _, f := range rep.Transient {
		fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("artifact %s %s: suspect the disk or memory", f.Blob, f.Message), Command: "agentlab doctor --data-dir " + shellQuote(env.dataDir)})
	}
	for _, f := range rep.Stray {
		cmd := "ls -l " + shellQuote(f.Path)
		if strings.Contains(f.Message, "interrupted write") {
			cmd = "rm -f " + shellQuote(f.Path)
		}
		fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("%s: %s", f.Path, f.Message), Command: cmd})
	}
	for _, f := range rep.Orphans {
		fs = append(fs, doctorFinding{Severity: sevWarning, Message: fmt.Sprintf("artifact %s is referenced by no run (left by an interrupted run; safe to delete)", f.Blob), Command: "rm -f " + shellQuote(f.Path)})
	}
	sum := fmt.Sprintf("%s, %s, all re-hashed", plural(rep.Blobs, "artifact"), humanBytes(rep.Bytes))
	if !complete {
		sum += "; orphans not checked (some runs could not be read)"
	}
	return doctorResult{Summary: sum, Findings: fs}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// shellQuote quotes s for a POSIX shell when it needs quoting, so the
// printed commands can be pasted as they are.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+@,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
