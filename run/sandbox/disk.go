package sandbox

import (
	"io/fs"
	"path/filepath"
	"time"
)

// diskPoll is how often the disk budget is checked.
const diskPoll = 20 * time.Millisecond

// watchDisk kills the code (over) when the files under dirs add up to more
// than budget bytes, checking every diskPoll until done is closed.
// RLIMIT_FSIZE bounds each file, not how many the code writes; this bounds
// the total. Under bwrap /tmp is a tmpfs of the budget's size, and the
// working directory is watched from outside; under process both are
// watched. A watched budget can be overshot by what the code writes
// between two checks (at disk speed, some tens of MB), never by much more.
func watchDisk(done <-chan struct{}, budget int64, dirs []string, over func(int64)) {
	t := time.NewTicker(diskPoll)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		var total int64
		for _, d := range dirs {
			filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
				if err != nil {
					return nil // a file removed while walking
				}
				if e.Type().IsRegular() {
					if fi, err := e.Info(); err == nil {
						total += fi.Size()
					}
				}
				return nil
			})
		}
		if total > budget {
			over(total)
			return
		}
	}
}
