package share

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/run/store/bucket"
	"github.com/agentlab/agentlab/verify"
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
	// same seal: nothing but missing artifacts was fetched, and its pages
	// were left as they were.
	Present bool `json:"present"`
}

// ErrDoesNotVerify: what the bucket holds does not verify against its
// seal; nothing of it was kept.
var ErrDoesNotVerify = errors.New("does not verify")

// Pull copies run runID from the bucket into dataDir: the run directory
// (events.jsonl and a run.json whose status and outputs come from the
// sealed events), every artifact it needs (each re-hashed before it is
// kept), and its pages into <data-dir>/out/<id>/. Before it returns, the
// copy is verified against the bucket's SEAL as `agentlab verify` would
// (run directory and bundle); a copy that does not verify is removed and
// the pull fails. A run the data dir already holds under the same seal
// only gets its missing artifacts; its pages are never replaced.
func Pull(ctx context.Context, b *bucket.Bucket, dataDir, runID string) (*Pulled, error) {
	if err := runlog.CheckID(runID); err != nil {
		return nil, err
	}
	held, err := b.Get(ctx, sealKey(b, runID), maxSeal)
	if isNotFound(err) {
		return nil, fmt.Errorf("run %s is not in %s (list what is there with `agentlab runs list --store URL`): %w", runID, b.Loc, runlog.ErrNoRun)
	}
	if err != nil {
		return nil, err
	}
	seal, err := parseSealFile(runID, held)
	if err != nil {
		return nil, err
	}
	out := &Pulled{Run: runID, Seal: seal.String(), Dir: filepath.Join(runlog.RunsDir(dataDir), runID)}
	m, err := readManifest(ctx, b, runID, seal)
	if err != nil {
		return nil, err
	}

	if present, err := localSeal(dataDir, runID, seal, out); err != nil || present {
		if err != nil {
			return nil, err
		}
		if err := fetchArtifacts(ctx, b, dataDir, runID, m, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := fetchArtifacts(ctx, b, dataDir, runID, m, out); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("run %s: the bucket's %s is for run %q sealed %q, not run %s sealed %s", runID, runlog.RecordFile, rec.ID, rec.Seal, runID, seal)
	}

	// The pages go where this machine keeps them, under absolute paths:
	// verify finds them wherever it is run from.
	outDir, err := filepath.Abs(filepath.Join(dataDir, "out", runID))
	if err != nil {
		return nil, err
	}
	var written []string
	cleanup := func() {
		for _, p := range written {
			os.Remove(p)
		}
		os.Remove(outDir) // only when empty
	}
	rec.Report, rec.Bundle = "", ""
	for _, name := range m.Pages {
		page, err := b.Get(ctx, fileKey(b, runID, seal, name), maxPage)
		if err != nil {
			cleanup()
			return nil, err
		}
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			cleanup()
			return nil, err
		}
		p := filepath.Join(outDir, name)
		if err := fsutil.WriteFileAtomic(p, page, 0o644); err != nil {
			cleanup()
			return nil, err
		}
		written = append(written, p)
		if name == BundleFile {
			rec.Bundle = p
		} else {
			rec.Report = p
		}
	}
	// What run.json says of the outcome comes from the sealed events, not
	// from the bucket's run.json, which the seal does not cover.
	record := func(events []chain.Event) ([]byte, error) {
		outputs, err := run.SealedOutputs(events)
		if err != nil {
			return nil, fmt.Errorf("run %s: %v", runID, err)
		}
		ob, err := json.Marshal(outputs)
		if err != nil {
			return nil, err
		}
		rec.Status, rec.Outputs, rec.Error, rec.Waiting = runlog.StatusSucceeded, ob, "", nil
		rb, err := runlog.MarshalReadable(rec)
		return append(rb, '\n'), err
	}
	if err := placeRunDir(dataDir, runID, events, record); err != nil {
		cleanup()
		if errors.Is(err, runlog.ErrExists) {
			// Another pull of this run into this data dir finished first.
			if present, perr := localSeal(dataDir, runID, seal, out); perr == nil && present {
				return out, nil
			}
		}
		return nil, err
	}
	out.Bundle, out.Report = rec.Bundle, rec.Report
	if err := verifyPulled(out, seal); err != nil {
		os.RemoveAll(out.Dir)
		cleanup()
		return nil, fmt.Errorf("run %s: the bucket's copy %w against seal %s, so nothing of it was kept: %v", runID, ErrDoesNotVerify, seal, err)
	}
	return out, nil
}

// readManifest reads and checks the manifest of a committed run.
func readManifest(ctx context.Context, b *bucket.Bucket, runID string, seal hashid.ID) (*Manifest, error) {
	mb, err := b.Get(ctx, fileKey(b, runID, seal, ManifestFile), maxManifest)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, fmt.Errorf("run %s: the bucket's %s: %w", runID, ManifestFile, err)
	}
	switch {
	case m.Format != ManifestFormat:
		return nil, fmt.Errorf("run %s: the bucket's %s has format %d; this version reads format %d", runID, ManifestFile, m.Format, ManifestFormat)
	case m.Run != runID:
		return nil, fmt.Errorf("run %s: the bucket's %s names run %q", runID, ManifestFile, m.Run)
	case m.Seal != seal.String():
		return nil, fmt.Errorf("run %s: the bucket's %s names seal %q, but SEAL holds %s", runID, ManifestFile, m.Seal, seal)
	}
	for _, name := range m.Pages {
		if name != BundleFile && name != ReportFile {
			return nil, fmt.Errorf("run %s: the bucket's %s lists page %q", runID, ManifestFile, name)
		}
	}
	return &m, nil
}

// localSeal reports whether dataDir holds runID sealed as seal (filling
// out's pages from it), and refuses a run held under another seal or not
// sealed at all.
func localSeal(dataDir, runID string, seal hashid.ID, out *Pulled) (bool, error) {
	local, err := runlog.OpenReadOnly(dataDir, runID)
	if errors.Is(err, runlog.ErrNoRun) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	switch {
	case local.Record.Seal == "":
		return false, fmt.Errorf("run %s: %w: this data dir holds it unsealed (status %s); pull into another --data-dir", runID, ErrNotReproducible, local.Record.Status)
	case local.Record.Seal != seal.String():
		return false, fmt.Errorf("run %s: %w: this data dir holds it sealed as %s, the bucket as %s; pull into another --data-dir to compare them", runID, ErrNotReproducible, local.Record.Seal, seal)
	}
	out.Present = true
	if _, err := os.Stat(local.Record.Bundle); err == nil && local.Record.Bundle != "" {
		out.Bundle = local.Record.Bundle
	}
	if _, err := os.Stat(local.Record.Report); err == nil && local.Record.Report != "" {
		out.Report = local.Record.Report
	}
	return true, nil
}

// fetchArtifacts makes every artifact of the manifest present locally,
// each re-hashed, none larger than the manifest says.
func fetchArtifacts(ctx context.Context, b *bucket.Bucket, dataDir, runID string, m *Manifest, out *Pulled) error {
	local, err := store.OpenFileStore(runlog.ArtifactsDir(dataDir))
	if err != nil {
		return err
	}
	shared := &bucket.Blobs{B: b, Ctx: ctx, Limit: func(id hashid.ID) int64 {
		if n, ok := m.Sizes[id.String()]; ok {
			return n
		}
		return bucket.MaxBlob
	}}
	tiered := &store.Tiered{Local: local, Shared: shared}
	for _, s := range m.Artifacts {
		id, err := hashid.Parse(s)
		if err != nil || id.String() != s {
			return fmt.Errorf("run %s: the bucket's %s lists %q, which is not an artifact id", runID, ManifestFile, s)
		}
		had, err := local.Has(id)
		if err != nil {
			return err
		}
		if err := tiered.Fetch(id); err != nil {
			return fmt.Errorf("run %s: %w", runID, err)
		}
		if !had {
			out.Fetched++
		}
	}
	out.Artifacts = len(m.Artifacts)
	return nil
}

// verifyPulled checks the pulled run directory and bundle against seal.
func verifyPulled(p *Pulled, seal hashid.ID) error {
	paths := []string{p.Dir}
	if p.Bundle != "" {
		paths = append(paths, p.Bundle)
	}
	for _, path := range paths {
		res, err := verify.Verify(path, verify.Options{Expect: seal.String()})
		if err != nil {
			return err
		}
		if !res.OK {
			var bad []string
			for _, c := range res.Checks {
				if !c.OK {
					bad = append(bad, c.Name+": "+c.Detail)
				}
			}
			return fmt.Errorf("%s: %s", filepath.Base(path), strings.Join(bad, "; "))
		}
	}
	return nil
}

// placeRunDir writes the run directory under a temporary name and renames
// it into place, so that a pull killed half-way leaves no run directory
// that looks whole. run.json is made by record from the events as read
// back from that directory.
func placeRunDir(dataDir, runID string, events []byte, record func([]chain.Event) ([]byte, error)) error {
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
	snap, err := runlog.ReadDir(tmp, runID)
	if err != nil {
		return fmt.Errorf("run %s: the bucket's %s: %w", runID, runlog.EventsFile, err)
	}
	rb, err := record(snap.Events)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(tmp, runlog.RecordFile), rb, 0o644); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	dst := filepath.Join(runs, runID)
	if err := os.Rename(tmp, dst); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, os.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return fmt.Errorf("run %s appeared in %s while it was pulled: %w", runID, runs, runlog.ErrExists)
		}
		return err
	}
	return fsutil.SyncDir(runs)
}
