package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
)

var (
	dropOnce sync.Once
	dropErr  error
)

// canDropRoot reports whether the shim can switch from root to another user
// here (a container may deny CAP_SETUID). It is probed once, by running
// the shim with only the uid change; when it fails, code runs as root and
// Detect says so.
func canDropRoot() error {
	dropOnce.Do(func() {
		if os.Geteuid() != 0 {
			return
		}
		self, err := os.Executable()
		if err != nil {
			dropErr = err
			return
		}
		sh, err := lookSandboxPath("sh")
		if err != nil {
			dropErr = err
			return
		}
		cmd := &exec.Cmd{Path: self, Args: []string{shimName, fmt.Sprintf("uid=%d", nobody), "--", sh, "-c", "exit 0"}, Env: []string{"PATH=" + sandboxPath}}
		if out, err := cmd.CombinedOutput(); err != nil {
			dropErr = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
		}
	})
	return dropErr
}

// Sandbox uids: when agentlab runs as root, every run gets a uid (and gid)
// of its own from this range, which no account uses. RLIMIT_NPROC is
// counted per user, so a shared uid such as nobody would let one run's
// fork bomb starve every other run of processes for its whole timeout,
// and let runs signal or inspect each other. With a uid per run the limit
// is exactly the run's own.
const (
	uidBase  = 2_100_000_000
	uidRange = 1 << 24
)

var uidNext atomic.Uint32

// sandboxUID returns a fresh uid for one run: distinct within this
// process, and spread by the pid across processes.
func sandboxUID() int {
	n := uint32(os.Getpid())<<12 + uidNext.Add(1)
	return uidBase + int(n%uidRange)
}
