package runlog

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/store"
)

// TornTail describes an incomplete last line of events.jsonl.
type TornTail = chain.TornTail

// readEvents reads an events.jsonl file with chain.ParseLog. A missing
// file is an empty log.
func readEvents(path string) ([]chain.Event, []chain.Problem, *TornTail, error) {
	if err := checkRunFile(path, fsutil.EventsCap.Bytes(), "; "+fsutil.EventsCap.Hint()); err != nil {
		return nil, nil, nil, err
	}
	b, err := store.ReadFileRetry(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	evs, probs, torn, err := chain.ParseLog(path, b)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w; the event log is damaged before its last line, so it cannot be repaired automatically: inspect it with `agentlab verify %s`", err, filepath.Dir(path))
	}
	return evs, probs, torn, nil
}
