//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileFilesRefusedPromptly points every reader of the CLI at files
// built to exhaust or hang it — /dev/zero, a FIFO nobody writes to, links
// to them planted in a run directory — and requires a clear refusal within
// seconds, in little memory (a reader that reads /dev/zero up to its cap
// of gigabytes fails the RSS bound). Bad values of flags that bound reads
// are refused too.
func TestHostileFilesRefusedPromptly(t *testing.T) {
	exe := agentlabExe(t)
	work := t.TempDir()
	fifo := filepath.Join(work, "fifo.yml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	write := func(name, s string) string {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flow := write("flow.yml", "agentlab: 1\nname: ok\ninputs:\n  week: {type: string, default: W1}\nnodes:\n  - id: out\n    type: output\n    fields: {w: \"{{ input.week }}\"}\n")
	devSource := write("devsource.yml", "agentlab: 1\nname: dev\nsources:\n  s: {kind: csv, path: /dev/zero}\nnodes:\n  - id: q\n    type: tool\n    tool: db_query__s\n    args: {sql: \"SELECT 1 AS x\"}\n")
	// The same source with /dev opened by [paths] allow: the loader itself
	// must still refuse the device.
	write("allowed/agentlab.toml", "[paths]\nallow = [\"/dev\"]\n")
	devAllowed := write("allowed/flow.yml", "agentlab: 1\nname: dev\nsources:\n  s: {kind: csv, path: /dev/zero}\nnodes:\n  - id: q\n    type: tool\n    tool: db_query__s\n    args: {sql: \"SELECT 1 AS x\"}\n")
	dupInputs := write("dup.json", `{"week": "W46", "week": "W47"}`)
	// A flow folder whose agentlab.toml is a FIFO (a tar archive can carry
	// one): every reader of the configuration would block in open(2),
	// beyond the reach of SIGTERM.
	fifoConfigFlow := write("fifocfg/flow.yml", "agentlab: 1\nname: ok\nnodes:\n  - id: out\n    type: output\n    fields: {w: \"1\"}\n")
	if err := syscall.Mkfifo(filepath.Join(work, "fifocfg", "agentlab.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("zerocfg/flow.yml", "agentlab: 1\nname: ok\nnodes:\n  - id: out\n    type: output\n    fields: {w: \"1\"}\n")
	if err := os.Symlink("/dev/zero", filepath.Join(work, "zerocfg", "agentlab.toml")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
	type result struct {
		code int
		out  string
		rss  int64 // KiB
	}
	agentlab := func(args ...string) result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Env, cmd.Dir = env, work
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("agentlab %v hangs:\n%s", args, out.String())
		}
		var rss int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = int64(ru.Maxrss)
		}
		return result{cmd.ProcessState.ExitCode(), out.String(), rss}
	}
	// A sealed run to damage: its events.jsonl becomes a FIFO in one copy,
	// its run.json a link to /dev/zero in another.
	if r := agentlab("run", flow, "--data-dir", "data", "-q"); r.code != 0 {
		t.Fatalf("run: %d\n%s", r.code, r.out)
	}
	id := findRun(t, filepath.Join(work, "data"))
	damaged := func(name, file string, plant func(path string) error) string {
		dst := filepath.Join(work, name)
		if err := exec.Command("cp", "-a", filepath.Join(work, "data"), dst).Run(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, "runs", id, file)
		os.Remove(p)
		if err := plant(p); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	fifoEvents := damaged("fifo-events", "events.jsonl", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	zeroRecord := damaged("zero-record", "run.json", func(p string) error { return os.Symlink("/dev/zero", p) })

	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"lint-dev-zero", []string{"lint", "/dev/zero"}, 2, "not a regular file"},
		{"lint-fifo", []string{"lint", fifo}, 2, "not a regular file"},
		{"compile-dev-zero", []string{"compile", "/dev/zero"}, 1, "not a regular file"},
		{"run-dev-zero", []string{"run", "/dev/zero", "--data-dir", "d1"}, 2, "not a regular file"},
		{"run-fifo", []string{"run", fifo, "--data-dir", "d1"}, 2, "not a regular file"},
		{"input-file-dev-zero", []string{"run", flow, "--data-dir", "d2", "--input-file", "/dev/zero"}, 2, "not a regular file"},
		{"script-provider-fifo", []string{"run", flow, "--data-dir", "d5", "--provider", "script:" + fifo}, 2, "not a regular file"},
		{"script-provider-dev-zero", []string{"run", flow, "--data-dir", "d5", "--provider", "script:/dev/zero"}, 2, "not a regular file"},
		{"project-config-fifo", []string{"run", fifoConfigFlow, "--data-dir", "d6"}, 2, "not a regular file"},
		{"project-config-dev-zero", []string{"run", filepath.Join(work, "zerocfg", "flow.yml"), "--data-dir", "d6"}, 2, "not a regular file"},
		{"input-file-duplicate-key", []string{"run", flow, "--data-dir", "d2", "--input-file", dupInputs}, 2, `key "week" appears twice`},
		{"source-dev-zero", []string{"run", devSource, "--data-dir", "d3"}, 2, "E-PATH-OUTSIDE"},
		{"source-dev-zero-allowed", []string{"run", devAllowed, "--data-dir", "d3"}, 2, "E-SRC-OPEN"},
		{"issuance-metrics-dev-zero", []string{"issuance", "--metrics", "/dev/zero", "x"}, 2, "not a regular file"},
		{"verify-dev-zero", []string{"verify", "/dev/zero"}, 2, "not a regular file"},
		{"verify-negative-max-bytes", []string{"verify", filepath.Join(work, "data", "runs", id), "--max-bytes", "-1"}, 2, "negative"},
		{"verify-fifo-events", []string{"verify", filepath.Join(fifoEvents, "runs", id)}, 0, "not a regular file"},
		{"runs-show-fifo-events", []string{"runs", "show", id, "--data-dir", fifoEvents}, 2, "not a regular file"},
		{"doctor-fifo-events", []string{"doctor", "--data-dir", fifoEvents}, 1, "not a regular file"},
		{"runs-show-zero-record", []string{"runs", "show", id, "--data-dir", zeroRecord}, 2, "not a regular file"},
		{"doctor-zero-record", []string{"doctor", "--data-dir", zeroRecord}, 1, "not a regular file"},
		{"verify-zero-record", []string{"verify", filepath.Join(zeroRecord, "runs", id)}, 0, "not a regular file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := agentlab(tt.args...)
			if (tt.code != 0 && r.code != tt.code) || (tt.code == 0 && r.code == 0) || !strings.Contains(r.out, tt.want) {
				t.Errorf("agentlab %v: exit %d, want %d and %q in:\n%s", tt.args, r.code, tt.code, tt.want, r.out)
			}
			if r.rss > 512<<10 {
				t.Errorf("agentlab %v used %d MiB", tt.args, r.rss>>10)
			}
		})
	}
}
