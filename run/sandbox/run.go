package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"
)

// Run executes spec in the detected (or spec.Backend) backend. An error
// means the code could not be started at all; a failing, killed or
// timed-out program is a Result with the flags set.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if spec.Backend == "" {
		info := Detect()
		if info.Err != nil {
			return nil, info.Err
		}
		spec.Backend = info.Chosen
	} else if spec.Backend == Bwrap {
		// Asked for by name: refuse with the probe's reason rather than
		// fail inside bwrap, and never fall back to no isolation.
		if info := Detect(); !slices.Contains(info.Available, Bwrap) {
			return nil, fmt.Errorf("sandbox: bwrap was requested but cannot run here: %s", info.Reasons[Bwrap])
		}
	}
	return run(ctx, spec)
}

func run(ctx context.Context, spec Spec) (*Result, error) {
	if err := spec.normalise(); err != nil {
		return nil, err
	}
	if spec.Backend != Bwrap && spec.Backend != Process {
		return nil, fmt.Errorf("%w: backend %q is not bwrap or process", ErrSpec, spec.Backend)
	}
	dir, err := filepath.Abs(spec.Dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: working directory %s does not exist; create it before running", ErrSpec, dir)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: cannot find the running binary for the limits shim: %w", err)
	}
	// The code goes to a scratch directory of its own (with a tmp dir),
	// outside the workspace so it does not show up among the results.
	scratch, err := os.MkdirTemp("", "agentlab-code-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)

	uid := -1
	var warnings []string
	if os.Geteuid() == 0 && canDropRoot() != nil {
		warnings = append(warnings, "the code runs as root: switching users is not permitted here ("+canDropRoot().Error()+")")
	} else if os.Geteuid() == 0 {
		uid = sandboxUID()
		if spec.Backend == Bwrap && !(reachableByOthers(dir) && reachableByOthers(scratch)) {
			// bwrap resolves bind sources itself, so as that uid it cannot
			// reach a workspace below a private directory. It then runs as
			// root and maps the code to uid 65534 in its user namespace: the
			// mounts still confine it, but the kernel does not apply
			// RLIMIT_NPROC to root, so the process count is bounded by the
			// timeout and the PID namespace only.
			uid = -1
			warnings = append(warnings, "the process count limit is not enforced: the working or temporary directory is below a directory that other users cannot enter, so the sandbox runs as root mapped to uid 65534")
		}
	}

	tmp := filepath.Join(scratch, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		return nil, err
	}
	if err := os.Chmod(scratch, 0o755); err != nil {
		return nil, err
	}
	if uid >= 0 {
		// The code runs as its own uid: it needs its directories writable.
		for _, d := range []string{dir, tmp} {
			if err := os.Chown(d, uid, uid); err != nil {
				return nil, fmt.Errorf("sandbox: cannot hand %s to uid %d: %w", d, uid, err)
			}
		}
	}

	var argv []string
	codePath := ""
	if len(spec.Argv) > 0 {
		p, err := lookSandboxPath(spec.Argv[0])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSpec, err)
		}
		argv = append([]string{p}, spec.Argv[1:]...)
	} else {
		in := interpreters[spec.Language]
		p, err := lookSandboxPath(in.cmd)
		if err != nil {
			return nil, fmt.Errorf("sandbox: cannot run %s code: %v", spec.Language, err)
		}
		codePath = filepath.Join(scratch, in.file)
		if err := os.WriteFile(codePath, []byte(spec.Code), 0o644); err != nil {
			return nil, err
		}
		argv = []string{p, codePath}
	}

	env := map[string]string{"PATH": sandboxPath, "TEMP": tmp, "TMP": tmp}
	if spec.Backend == Bwrap {
		env["TEMP"], env["TMP"] = "/tmp", "/tmp"
		bw, err := bwrapPath()
		if err != nil {
			return nil, err
		}
		if codePath != "" {
			argv[1] = "/code/" + filepath.Base(codePath)
		}
		argv = append(bwrapArgs(bw, dir, scratch, os.Geteuid() == 0 && uid < 0, int64(spec.DiskMB)<<20), argv...)
	}
	for k, v := range spec.Env {
		env[k] = v
	}

	runAs := os.Geteuid()
	if uid >= 0 {
		runAs = uid
	}
	limits := shimLimits{
		cpu:   uint64(spec.CPUSeconds),
		data:  uint64(spec.MemoryMB) << 20,
		fsize: uint64(spec.FileSizeMB) << 20,
		nproc: uint64(spec.MaxProcs + tasksOf(runAs)),
		uid:   uid,
	}
	args := append([]string{shimName}, limits.args()...)
	args = append(args, "--")
	args = append(args, argv...)

	tctx, cancel := context.WithTimeout(ctx, spec.Timeout)
	defer cancel()
	cmd := &exec.Cmd{Path: self, Args: args, Dir: dir, Env: envList(env)}
	if spec.Backend == Bwrap {
		cmd.Dir = scratch // bwrap itself changes into /work
	}
	// A new session: the code has no controlling terminal (so it cannot
	// push keystrokes into the caller's with TIOCSTI) and leads its own
	// process group, which the timeout kills as a whole.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdin = bytes.NewReader(spec.Stdin)

	k := &killer{}
	killAt := max(4*spec.OutputCap, spec.OutputCap+1<<20)
	stdout := &capBuffer{cap: spec.OutputCap, killAt: killAt, onFlood: func() { k.kill(cmd, "output flood: more than "+humanSize(killAt)+" written", false) }}
	stderr := &capBuffer{cap: spec.OutputCap, killAt: killAt, onFlood: stdout.onFlood}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if spec.Stdio != nil {
		cmd.Stdin, cmd.Stdout = spec.Stdio.In, spec.Stdio.Out
	}
	cmd.WaitDelay = 2 * time.Second // a child that escaped the group must not hold the pipes open

	becomeSubreaper()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: cannot start: %w", err)
	}
	done := make(chan struct{})
	go watchDisk(done, int64(spec.DiskMB)<<20, []string{dir, tmp}, func(n int64) {
		k.kill(cmd, fmt.Sprintf("disk budget: more than %s written to the working directory and /tmp", humanSize(spec.DiskMB<<20)), false)
	})
	go func() {
		select {
		case <-tctx.Done():
			if errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
				k.kill(cmd, fmt.Sprintf("wall-clock timeout of %s", spec.Timeout), true)
			} else {
				k.kill(cmd, "cancelled", false)
			}
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	// Anything left in the group (a background child, a fork bomb's
	// orphans) goes too, and is reaped before the next run starts.
	if !killAndReap(cmd.Process.Pid, 5*time.Second) {
		warnings = append(warnings, "some processes of the code had not exited 5s after the kill")
	}

	res := &Result{Backend: spec.Backend, Duration: time.Since(start), Warnings: warnings}
	res.Stdout, res.Stderr = stdout.bytes(), stderr.bytes()
	if spec.Backend == Process {
		hp := newHostPaths(dir, scratch, tmp)
		res.Stdout, res.Stderr = hp.rewrite(res.Stdout), hp.rewrite(res.Stderr)
	}
	res.OutputTruncated = stdout.truncated() || stderr.truncated()
	res.Killed, res.KillReason, res.TimedOut = k.state()
	res.ExitCode = -1
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
			if !res.Killed && (ws.Signal() == syscall.SIGKILL || ws.Signal() == syscall.SIGXCPU) {
				res.Killed = true
				res.KillReason = "killed by " + res.Signal + " (a resource limit: CPU time is the usual cause)"
			}
		}
	}
	if spec.Backend == Bwrap && res.Signal == "" && res.ExitCode > 128 && res.ExitCode < 128+65 {
		// bwrap reports a child killed by signal N as exit status 128+N.
		sig := syscall.Signal(res.ExitCode - 128)
		res.Signal = sig.String()
		if !res.Killed && (sig == syscall.SIGKILL || sig == syscall.SIGXCPU) {
			res.Killed = true
			res.KillReason = "killed by " + res.Signal + " (a resource limit: CPU time is the usual cause)"
		}
	}
	if waitErr != nil && cmd.ProcessState == nil {
		return res, fmt.Errorf("sandbox: %w", waitErr)
	}
	if !res.OutputTruncated {
		if trimmed := bytes.TrimSpace(res.Stdout); len(trimmed) > 0 && json.Valid(trimmed) {
			if err := json.Unmarshal(trimmed, &res.Value); err == nil {
				res.IsJSON = true
			}
		}
	}
	return res, nil
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// killer kills the process group once and remembers why; the first
// reason wins (a timeout that fires after an output flood is not a timeout).
type killer struct {
	mu       sync.Mutex
	killed   bool
	reason   string
	timedOut bool
}

func (k *killer) kill(cmd *exec.Cmd, reason string, timeout bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed || cmd.Process == nil {
		return
	}
	k.killed, k.reason, k.timedOut = true, reason, timeout
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func (k *killer) state() (bool, string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.killed, k.reason, k.timedOut
}

func humanSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// reachableByOthers reports whether every directory above dir may be
// entered by any user, so that bwrap running as the sandbox uid can bind
// it.
func reachableByOthers(dir string) bool {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}
