package share

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/run/store/bucket"
)

// Pulled says what Pull did.
type Pulled struct {
	Run       string `json:"run"`
	Seal      string `json:"seal"`
	Dir       string `json:"dir"`              // the run directory, for agentlab verify
	Bundle    string `json:"bundle,omitempty"` // bundle.html, when the run was published with one
	Report    string `json:"report,omitempty"`
	Artifacts int    `json:"artifacts"`
	Fetched   int    `json:"fetched"` // artifacts the local store did not have
	// Present is true when the data dir had the run already, under the
	// same seal: nothing but missing artifacts was fetched.
	Present bool `json:"present"`
}

// Pull copies run runID from the bucket into dataDir: the run directory
// (events.jsonl and run.json), every artifact it needs (each re-hashed
// before it is kept), and its pages into <data-dir>/out/<id>/. Nothing is
// trusted: `agentlab verify` checks the result against the seal offline.
func Pull(ctx context.Context, b *bucket.Bucket, dataDir, runID string) (*Pulled, error) {
	if err := runlog.CheckID(runID); err != nil {
		return nil, err
	}
	held, err := b.Get(ctx, sealKey(b, runID), maxSeal)
	if isNotFound(err) {
		return nil, fmt.Errorf("run %s is not in %s (list what is there with `agentlab runs list --store %s`): %w", runID, b.Loc, b.Loc, runlog.ErrNoRun)
	}
	if err != nil {
		return nil, err
	}
	seal, err := parseSealFile(runID, held)
	if err != nil {
		return nil, err
	}
	out := &Pulled{Run: runID, Seal: seal.String(), Dir: filepath.Join(runlog.RunsDir(dataDir), runID)}
	mb, err := b.Get(ctx, fileKey(b, runID, seal, ManifestFile), maxManifest)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, fmt.Errorf("run %s: the bucket's %s: %w", runID, ManifestFile, err)
	}
	if m.Run != runID || m.Seal != seal.String() {
		return nil, fmt.Errorf("run %s: the bucket's %s names run %s sealed %s, not %s", runID, ManifestFile, m.Run, m.Seal, seal)
	}

	if local, err := runlog.OpenReadOnly(dataDir, runID); err == nil {
		if local.Record.Seal != seal.String() {
			return nil, fmt.Errorf("run %s: %w: this data dir holds it as %q, the bucket sealed as %s; pull into another --data-dir to compare them", runID, ErrNotReproducible, local.Record.Seal, seal)
		}
		out.Present = true
	} else if !errors.Is(err, runlog.ErrNoRun) {
		return nil, err
	}

	local, err := store.OpenFileStore(runlog.ArtifactsDir(dataDir))
	if err != nil {
		return nil, err
	}
	tiered := &store.Tiered{Local: local, Shared: &bucket.Blobs{B: b, Ctx: ctx}}
	for _, s := range m.Artifacts {
		id, err := hashid.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("run %s: the bucket's %s lists %q: %w", runID, ManifestFile, s, err)
		}
		had, err := local.Has(id)
		if err != nil {
			return nil, err
		}
		if err := tiered.Fetch(id); err != nil {
			return nil, fmt.Errorf("run %s: %w", runID, err)
		}
		if !had {
			out.Fetched++
		}
	}
	out.Artifacts = len(m.Artifacts)

	outDir := filepath.Join(dataDir, "out", runID)
	pages := map[string]string{}
	for _, name := range m.Pages {
		if name != BundleFile && name != ReportFile {
			return nil, fmt.Errorf("run %s: the bucket's %s lists page %q", runID, ManifestFile, name)
		}
		page, err := b.Get(ctx, fileKey(b, runID, seal, name), maxPage)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return nil, err
		}
		p := filepath.Join(outDir, name)
		if err := fsutil.WriteFileAtomic(p, page, 0o644); err != nil {
			return nil, err
		}
		pages[name] = p
	}
	out.Bundle, out.Report = pages[BundleFile], pages[ReportFile]
	if out.Present {
		return out, nil
	}

	events, err := b.Get(ctx, fileKey(b, runID, seal, runlog.EventsFile), maxEvents)
	if err != nil {
		return nil, err
	}
	rb, err := b.Get(ctx, fileKey(b, runID, seal, runlog.RecordFile), maxRecord)
	if err != nil {
		return nil, err
	}
	var rec runlog.Record
	if err := json.Unmarshal(rb, &rec); err != nil {
		return nil, fmt.Errorf("run %s: the bucket's %s: %w", runID, runlog.RecordFile, err)
	}
	if rec.ID != runID || rec.Seal != seal.String() {
		return nil, fmt.Errorf("run %s: the bucket's %s is for run %s sealed %s", runID, runlog.RecordFile, rec.ID, rec.Seal)
	}
	// The pages are where this machine keeps them.
	rec.Report, rec.Bundle = out.Report, out.Bundle
	rb, err = json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := placeRunDir(dataDir, runID, events, append(rb, '\n')); err != nil {
		return nil, err
	}
	return out, nil
}

// placeRunDir writes the run directory under a temporary name and renames
// it into place, so that a pull killed half-way leaves no run directory
// that looks whole.
func placeRunDir(dataDir, runID string, events, record []byte) error {
	runs := runlog.RunsDir(dataDir)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(runs, ".tmp-pull-"+runID+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fsutil.WriteFileAtomic(filepath.Join(tmp, runlog.EventsFile), events, 0o644); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(tmp, runlog.RecordFile), record, 0o644); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	dst := filepath.Join(runs, runID)
	if err := os.Rename(tmp, dst); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, os.ErrExist) {
			return fmt.Errorf("run %s appeared in %s while it was pulled: %w", runID, runs, runlog.ErrExists)
		}
		return err
	}
	return fsutil.SyncDir(runs)
}
