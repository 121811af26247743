package sandbox

import (
	"errors"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var subreaperOnce sync.Once

// becomeSubreaper makes this process the reaper of orphaned descendants.
// Without it, the children of killed code (a fork bomb's, say) are handed
// to PID 1, and where PID 1 does not reap (common in containers) their
// zombies keep counting against RLIMIT_NPROC for the sandbox user, so the
// next run cannot start. As the subreaper agentlab reaps them itself.
func becomeSubreaper() {
	subreaperOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// killAndReap kills what is left of the process group pgid and reaps every
// member that has become our child, waiting at most limit. It reports
// whether the group was emptied in time.
func killAndReap(pgid int, limit time.Duration) bool {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A dying member is handed to us only once its parent is gone, so
		// ECHILD alone does not mean the group is empty: poll until kill
		// says no member (zombies included) is left.
		for {
			pid, err := unix.Wait4(-pgid, nil, unix.WNOHANG, nil)
			switch {
			case errors.Is(err, syscall.EINTR) || pid > 0:
				continue
			case syscall.Kill(-pgid, 0) == syscall.ESRCH:
				return
			}
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}
