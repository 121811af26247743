package runlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentlab/agentlab/chain"
)

// Snapshot is a run read without its lock, for `runs show`, `runs events`,
// `verify` and `doctor`. Nothing is repaired: a torn tail is reported in
// Torn and left in place, chain defects are listed in Problems.
type Snapshot struct {
	Dir       string
	Record    Record
	HasRecord bool // run.json exists (a run killed right after Create has none)
	Events    []chain.Event
	Problems  []chain.Problem // chain defects and non-canonical lines, by seq
	Torn      *TornTail
}

// OpenReadOnly reads a run without taking its lock. A run being written
// may gain events while it is read; the snapshot is whatever was complete.
func OpenReadOnly(dataDir, runID string) (*Snapshot, error) {
	if err := CheckID(runID); err != nil {
		return nil, err
	}
	dir := filepath.Join(RunsDir(dataDir), runID)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("run %s: %w (looked in %s; list runs with `agentlab runs list`)", runID, ErrNoRun, dir)
	}
	return ReadDir(dir, runID)
}

// ReadDir reads the run directory dir of run runID (a copied run directory
// works too).
func ReadDir(dir, runID string) (*Snapshot, error) {
	rec, ok, err := readRecord(dir)
	if err != nil {
		return nil, err
	}
	evs, probs, torn, err := readEvents(filepath.Join(dir, EventsFile))
	if err != nil {
		return nil, err
	}
	probs = append(probs, chain.VerifyChain(runID, evs)...)
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Seq < probs[j].Seq })
	return &Snapshot{Dir: dir, Record: rec, HasRecord: ok, Events: evs, Problems: probs, Torn: torn}, nil
}

// List returns the record of every run under dataDir, newest first (by
// Created, then by id). A run whose run.json is missing or unreadable is
// listed with Status "unknown" and the reason in Error. No runs directory
// means no runs.
func List(dataDir string) ([]Record, error) {
	ents, err := os.ReadDir(RunsDir(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, e := range ents {
		if !e.IsDir() || CheckID(e.Name()) != nil {
			continue
		}
		rec, ok, err := readRecord(filepath.Join(RunsDir(dataDir), e.Name()))
		switch {
		case err != nil:
			rec = Record{ID: e.Name(), Status: "unknown", Error: err.Error()}
		case !ok:
			rec = Record{ID: e.Name(), Status: "unknown", Error: "run.json is missing (the run was interrupted before its record was written)"}
		}
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created > out[j].Created
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// Holder reports whether a process has run runID open (holds its lock),
// and that process's PID when known. A run whose record says "running" but
// that nobody holds was interrupted and can be resumed.
func Holder(dataDir, runID string) (locked bool, pid int, err error) {
	if err := CheckID(runID); err != nil {
		return false, 0, err
	}
	return probeLock(filepath.Join(RunsDir(dataDir), runID, LockFile))
}
