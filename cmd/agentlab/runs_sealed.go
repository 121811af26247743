package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

// sealedRun is what the audit views (runs evidence, tools, using, extract,
// review) read: the events up to and including run.finished, which the
// seal covers, and the artifacts they name. Nothing else of a run — not
// run.json's outputs, not the report files — is trusted, so that a view
// says only what `agentlab verify` can check.
type sealedRun struct {
	ID     string
	Events []chain.Event // the sealed prefix
	get    func(hashid.ID) ([]byte, error)
}

// openSealed reads run id of the data dir. A run that is not sealed yet
// (running, waiting, killed before run.finished) is refused with the
// command that shows what it has. A chain the verifier would reject is
// reported on stderr; the view still shows what the events say.
func openSealed(dataDir, id string) (*sealedRun, error) {
	snap, err := runlog.OpenReadOnly(dataDir, id)
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	if chain.SealedPrefix(snap.Events) < 0 {
		return nil, exitf(exitUsage, "run %s is not sealed (status %s): the audit views read sealed runs only; see what it has with agentlab runs events %s", id, snap.Record.Status, id)
	}
	if len(snap.Problems) > 0 {
		fmt.Fprintf(os.Stderr, "warning: run %s has %d problem(s) in its event log; check it with agentlab verify %s\n", id, len(snap.Problems), snap.Dir)
	}
	s, err := sealedOf(dataDir, id, snap)
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	return s, nil
}

// errNotSealed is sealedOf's answer for a run without run.finished.
var errNotSealed = errors.New("the run is not sealed")

// sealedOf is the sealed prefix of snap with the data dir's artifacts.
func sealedOf(dataDir, id string, snap *runlog.Snapshot) (*sealedRun, error) {
	end := chain.SealedPrefix(snap.Events)
	if end < 0 {
		return nil, errNotSealed
	}
	st, err := store.OpenFileStore(filepath.Join(dataDir, "artifacts"))
	if err != nil {
		return nil, err
	}
	return &sealedRun{ID: id, Events: snap.Events[:end+1], get: st.Get}, nil
}

// doc loads the run's evidence as the report shows it.
func (s *sealedRun) doc() (*render.Doc, error) {
	d, err := render.LoadRun(s.ID, s.Events, s.get)
	if err != nil {
		return nil, exitf(exitFailed, "run %s: %v", s.ID, err)
	}
	return d, nil
}

// The audit views that read one run complete its id.
func init() {
	for _, sub := range []string{"evidence", "tools", "extract", "review"} {
		argCompleters["agentlab runs "+sub] = firstArg(completeRunIDs)
	}
}
