package runlog

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/store"
)

// CutAfter keeps the first n events of an open, unsealed run and cuts the
// rest from its log, saving the cut bytes beside it as
// events.jsonl.torn-<offset> (nothing is lost), as the repair of a torn
// last line does. It is for a group commit a kill cut short after some of
// its lines reached the file: the writer that knows what a whole group
// is (an evaluation's batch) removes the part that was never
// acknowledged, and runs it again.
func (r *Run) CutAfter(n int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.events == nil || r.mem != nil {
		return fmt.Errorf("run %s: %w", r.id, ErrClosed)
	}
	if n < 0 || n > len(r.log) {
		return fmt.Errorf("run %s: cannot keep %d of %d events", r.id, n, len(r.log))
	}
	if n == len(r.log) {
		return nil
	}
	if chain.SealedPrefix(r.log) >= 0 {
		return errors.New("runlog: a finished run's log is never cut")
	}
	path := filepath.Join(r.dir, EventsFile)
	b, err := store.ReadFileRetry(path)
	if err != nil {
		return err
	}
	off := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(b[off:], '\n')
		if j < 0 {
			return fmt.Errorf("run %s: %s has fewer lines than the events read from it", r.id, EventsFile)
		}
		off += j + 1
	}
	if err := repairTail(path, &TornTail{Offset: int64(off), Bytes: len(b) - off}); err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	r.repaired = fmt.Sprintf("%s: removed %d event(s) of an interrupted group commit (%d bytes); saved as %s.torn-%d", path, len(r.log)-n, len(b)-off, EventsFile, off)
	r.log = r.log[:n:n]
	r.size = int64(off)
	return nil
}
