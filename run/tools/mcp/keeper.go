package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// keeperName is the argv[0] under which Start re-executes the running
// binary to keep an MCP server's process group. It is not a command name
// one would type, so a normal invocation never takes this path.
const keeperName = "agentlab-mcp-keeper"

// keeperDeathSignal is the keeper's parent-death signal: the kernel sends
// it when agentlab dies, however it dies (SIGKILL included). It is not one
// that Close sends to the group, so the keeper can tell the two apart.
const keeperDeathSignal = syscall.SIGUSR2

func init() {
	if len(os.Args) > 0 && os.Args[0] == keeperName {
		os.Exit(keeperMain(os.Args[1:]))
	}
}

// keeperMain runs "-- PROG ARGV..." as its child in its own process group
// (the keeper leads it) and mirrors the child's exit. A parent-death
// signal alone cannot take a server's children with it: they are its
// children, not agentlab's. When agentlab dies the keeper gets
// keeperDeathSignal and kills the whole group, the server and everything
// it started. SIGTERM and SIGINT reach the server directly (Close signals
// the group), so the keeper ignores them and waits for the server.
func keeperMain(args []string) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "agentlab mcp keeper: usage: -- PROGRAM ARGV0 [ARGS...]")
		return 125
	}
	// Until this handler is in place the death signal's default action
	// ends the keeper, before it has started anything.
	death := make(chan os.Signal, 1)
	signal.Notify(death, keeperDeathSignal)
	// Caught, not ignored: an ignored disposition would pass to the server
	// through exec, a caught one is reset to the default there.
	group := make(chan os.Signal, 4)
	signal.Notify(group, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Orphans of the server are handed to the keeper, which reaps them.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	cmd := &exec.Cmd{Path: args[1], Args: args[2:], Env: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "agentlab mcp keeper: cannot start %s: %v\n", args[2], err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case <-death:
			killGroup()
		case <-group:
			// Sent to the whole group by Close: the server has it too.
		case err := <-done:
			// When agentlab dies the server may see its stdin close and
			// exit before the death signal arrives; what it started must
			// not outlive it either way (the client does the same after a
			// normal exit, when it is still there to do it).
			killRestOfGroup()
			return mirrorExit(err)
		}
	}
}

// killGroup kills the keeper's process group, the keeper included.
func killGroup() {
	_ = syscall.Kill(-os.Getpid(), syscall.SIGKILL)
	select {} // the SIGKILL ends the keeper
}

// killRestOfGroup kills every other member of the keeper's process group
// and reaps those handed to it, for a bounded time.
func killRestOfGroup() {
	self := os.Getpid()
	for range 50 {
		left := false
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			if pg, err := syscall.Getpgid(pid); err == nil && pg == self {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				left = true
			}
		}
		for {
			if pid, _ := unix.Wait4(-1, nil, unix.WNOHANG, nil); pid <= 0 {
				break
			}
		}
		if !left {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// mirrorExit ends the keeper as the server ended: with its exit status,
// or by the signal that killed it, so that the client describes the
// server's exit, not the keeper's.
func mirrorExit(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 127
		}
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond)
		// A signal whose default is not to end a process (SIGCHLD…)
		// could not have ended the server either; end the keeper plainly.
		return 128 + int(sig)
	}
	return ee.ExitCode()
}
