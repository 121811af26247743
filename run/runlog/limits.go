package runlog

import (
	"errors"
	"path/filepath"

	"github.com/agentlab/agentlab/fsutil"
)

// Caps on the files of a run directory, checked before they are read: a
// run.json or events.jsonl replaced by (a link to) something huge makes
// resume, runs show, doctor and verify refuse it instead of filling the
// memory. Devices, FIFOs and sockets are refused whatever their size
// (store.OSFS.ReadFile).
// events.jsonl and run.json have the configurable caps fsutil.EventsCap
// (2 GiB) and fsutil.RecordCap (run.json holds the inputs and outputs:
// 256 MiB); checkpoint.json, which agentlab alone writes and which holds a
// few hundred bytes, has a fixed one.
const MaxCheckpointBytes int64 = 1 << 20

// checkRunFile refuses a run file over limit bytes, or one that is not a
// regular file, before it is read. A file that does not exist passes (the
// read that follows reports it).
func checkRunFile(path string, limit int64, capHint string) error {
	f, size, err := fsutil.OpenRegular(path)
	if err != nil {
		var nr *fsutil.NotRegularError
		if asNotRegular(err, &nr) {
			return err
		}
		return nil
	}
	f.Close()
	if size > limit {
		return &fsutil.TooLargeError{Path: path, Size: size, Limit: limit,
			Hint: "a run file this large is not one agentlab wrote; inspect " + filepath.Base(path) + " (is it a link?)" + capHint}
	}
	return nil
}

func asNotRegular(err error, target **fsutil.NotRegularError) bool {
	return errors.As(err, target)
}
