package runlog

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/run/store"
)

// CreateWith makes runs/<id>/ holding checkpoint.json (checkpoint as JSON)
// and run.json (rec) from the instant it exists, and takes its lock. The
// directory is built under a temporary name (runs/.tmp-<id>-…), locked
// there, and renamed into place: a crash at any instant leaves either no
// run directory or one that resume can start from the beginning, never a
// run directory that names no plan. It fails with ErrExists if the run
// directory exists already.
func CreateWith(dataDir, runID string, checkpoint any, rec Record) (*Run, error) {
	if err := CheckID(runID); err != nil {
		return nil, err
	}
	rec.ID, rec.Format = runID, RecordFormat
	cpBytes, err := MarshalReadable(checkpoint)
	if err != nil {
		return nil, fmt.Errorf("run %s: checkpoint: %w", runID, err)
	}
	recBytes, err := MarshalReadable(rec)
	if err != nil {
		return nil, fmt.Errorf("run %s: record: %w", runID, err)
	}
	recBytes = redactRecord(recBytes)
	runs := RunsDir(dataDir)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, fmt.Errorf("create run %s: %w", runID, err)
	}
	dir := filepath.Join(runs, runID)
	if _, err := os.Lstat(dir); err == nil {
		return nil, existsError(runID, dir)
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, err
	}
	tmp := filepath.Join(runs, ".tmp-"+runID+"-"+hex.EncodeToString(suffix[:]))
	fsys := store.CurrentFS()
	if err := fsys.Mkdir(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("create run %s: %w", runID, err)
	}
	// The lock file's inode moves with the directory, so the lock taken
	// here is the run's lock once the rename is done.
	lk, err := lockFile(filepath.Join(tmp, LockFile), runID)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	fail := func(err error) (*Run, error) {
		unlockFile(lk)
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := atomicWrite(tmp, CheckpointFile, append(cpBytes, '\n')); err != nil {
		return fail(fmt.Errorf("run %s: write %s: %w", runID, CheckpointFile, err))
	}
	if err := atomicWrite(tmp, RecordFile, append(recBytes, '\n')); err != nil {
		return fail(fmt.Errorf("run %s: write %s: %w", runID, RecordFile, err))
	}
	if err := fsys.Rename(tmp, dir); err != nil {
		if _, serr := os.Lstat(dir); serr == nil || errors.Is(err, fs.ErrExist) {
			return fail(existsError(runID, dir))
		}
		return fail(fmt.Errorf("create run %s: %w", runID, err))
	}
	if err := fsys.SyncDir(runs); err != nil {
		unlockFile(lk)
		return nil, fmt.Errorf("create run %s: %w", runID, err)
	}
	r := newRun(dataDir, runID, dir)
	r.lock = lk
	if err := r.openEvents(); err != nil {
		r.Close()
		return nil, err
	}
	r.rec = rec
	return r, nil
}

func existsError(runID, dir string) error {
	return fmt.Errorf("create run %s: %w in %s; continue it with `agentlab resume %s`, or remove that directory", runID, ErrExists, dir, runID)
}
