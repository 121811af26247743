package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
)

// runRecord is the part of run.json (docs/formats.md, "Run record") the
// verifier reads. It is read directly, not through run/runlog, so that the
// verifier stays independent of the engine; nothing in it is trusted
// except through the seal recomputed from the events.
type runRecord struct {
	ID        string      `json:"id"`
	Plan      string      `json:"plan"`
	Seal      string      `json:"seal"`
	Status    string      `json:"status"`
	SealData  *chain.Seal `json:"seal_data"`
	Signature string      `json:"signature"`
	PublicKey string      `json:"public_key"`
	Report    string      `json:"report"`
}

// runDir is a run directory read from disk.
type runDir struct {
	dir       string
	artifacts string
	rec       runRecord
	log       []byte
	events    []chain.Event
	problems  []chain.Problem
	torn      *chain.TornTail
	lines     [][]byte
}

// DefaultArtifactsDir is where a run directory's artifacts live when
// nothing else is said: <data-dir>/artifacts, two levels above
// <data-dir>/runs/<id>.
func DefaultArtifactsDir(runDir string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Clean(runDir))), "artifacts")
}

// artifactPath is the file of a blob in an artifact store directory
// (docs/formats.md, "Artifact store").
func artifactPath(dir string, id hashid.ID) string {
	h := id.Hex()
	return filepath.Join(dir, h[:2], h[2:])
}

func readRunDir(dir, artifacts string, maxBytes int64, workers int) (*runDir, error) {
	r, err := readRecord(dir, artifacts)
	if err != nil {
		return nil, err
	}
	return r, r.readEvents(maxBytes, workers)
}

// readRecord reads run.json.
func readRecord(dir, artifacts string) (*runDir, error) {
	if artifacts == "" {
		artifacts = DefaultArtifactsDir(dir)
	}
	r := &runDir{dir: dir, artifacts: artifacts}
	b, err := readCappedHint(filepath.Join(dir, "run.json"), fsutil.RecordCap.Bytes(), fsutil.RecordCap.Hint())
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &r.rec); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "run.json"), err)
	}
	if r.rec.ID == "" {
		return nil, fmt.Errorf("%s: no run id", filepath.Join(dir, "run.json"))
	}
	return r, nil
}

// readEvents reads and parses events.jsonl.
func (r *runDir) readEvents(maxBytes int64, workers int) error {
	var err error
	r.log, err = readCapped(filepath.Join(r.dir, "events.jsonl"), maxBytes)
	if err != nil {
		return err
	}
	evs, probs, torn, lines, err := parseLog(filepath.Join(r.dir, "events.jsonl"), r.log, workers)
	if err != nil {
		return err
	}
	r.events, r.problems, r.torn, r.lines = evs, probs, torn, lines
	return nil
}

// errTooBig is returned for inputs over a size cap.
var errTooBig = errors.New("over the size limit")

// readCapped reads the file at path whole, refusing one over max bytes.
// The buffer is sized from the file's length, one byte over, so that a
// 30 MB event log is read straight into it: bytes.Buffer.ReadFrom would
// copy it into a buffer twice the size to keep room for a read that finds
// nothing more.
//
// A device, FIFO or socket (a bundle or events.jsonl that is, or links
// to, /dev/zero or a pipe) is refused before anything is read.
func readCapped(path string, limit int64) ([]byte, error) {
	return readCappedHint(path, limit, verifyCapHint())
}

// verifyCapHint says how to raise the cap of what verify reads.
func verifyCapHint() string {
	return fsutil.VerifyCap.Hint() + ", or with --max-bytes"
}

// readCappedHint is readCapped with its own way to raise the cap.
//
// It reads at most one byte more than the file had when opened: a file
// that reports a size of 0 but yields bytes without end
// (/proc/self/pagemap) or one another process keeps appending to is
// refused as changed instead of filling memory up to the cap. That is
// why verify does not use fsutil.ReadFileCapped, which reads a file that
// grows up to its cap: the run log reads a live events.jsonl through it,
// while what verify checks must not change under it.
func readCappedHint(path string, limit int64, hint string) ([]byte, error) {
	f, fsize, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fsize > limit {
		return nil, fmt.Errorf("%s: %d bytes, %w of %d (%s)", path, fsize, errTooBig, limit, hint)
	}
	b := make([]byte, 0, fsize+1)
	r := io.LimitReader(f, fsize+1)
	for len(b) < cap(b) {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(b)) > fsize {
		return nil, fmt.Errorf("%s changed while it was read (%d bytes when opened, more when read): verify it again once nothing writes to it", path, fsize)
	}
	return b, nil
}

// getFile reads a whole blob and checks its hash.
func getFile(dir string, id hashid.ID, max int64) ([]byte, error) {
	b, err := readCapped(artifactPath(dir, id), max)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("artifact %s is missing from %s", id.Short(), dir)
		}
		return nil, err
	}
	if hashid.Sum(b) != id {
		return nil, fmt.Errorf("artifact %s is corrupt: its bytes hash to %s", id.Short(), hashid.Sum(b).Short())
	}
	return b, nil
}
