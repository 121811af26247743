package share

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/run/store/bucket"
)

// Published says what Publish did.
type Published struct {
	Run  string `json:"run"`
	Seal string `json:"seal"`
	// Created is false when the bucket already had the run under the same
	// seal (another machine, or an earlier publish, wrote it first).
	Created   bool  `json:"created"`
	Artifacts int   `json:"artifacts"`
	Uploaded  int   `json:"uploaded"` // artifacts the bucket did not have yet
	Bytes     int64 `json:"bytes"`    // bytes uploaded
	// Restored counts the objects (artifacts and run files) put back under
	// a seal the bucket already held, because they had gone missing.
	Restored int `json:"restored,omitempty"`
}

// Publish copies a sealed run of dataDir to the bucket: artifacts first,
// then the run's files under its seal, and SEAL last. A run the bucket
// already holds under the same seal gets back whatever of it has gone
// missing (an artifact or run file deleted under the committed SEAL, which
// would otherwise make every pull fail for good), with nothing that is
// there rewritten; under another seal it is ErrNotReproducible, naming
// both.
func Publish(ctx context.Context, b *bucket.Bucket, dataDir, runID string) (*Published, error) {
	snap, err := runlog.OpenReadOnly(dataDir, runID)
	if err != nil {
		return nil, err
	}
	rec := snap.Record
	if rec.Seal == "" || rec.Status != runlog.StatusSucceeded {
		return nil, fmt.Errorf("run %s is %s: %w; only a sealed run is published (finish it with `agentlab resume %s`)", runID, rec.Status, ErrNotSealed, runID)
	}
	seal, err := hashid.Parse(rec.Seal)
	if err != nil {
		return nil, fmt.Errorf("run %s: run.json's seal: %w", runID, err)
	}
	out := &Published{Run: runID, Seal: rec.Seal}
	committed := false
	if held, err := b.Get(ctx, sealKey(b, runID), maxSeal); err == nil {
		if err := sameSeal(runID, seal, held); err != nil {
			return out, err
		}
		committed = true
	} else if !isNotFound(err) {
		return nil, err
	}
	// Only a copy that verifies against its own seal is shared: a damaged
	// event log or page committed under SEAL would be the bucket's for good.
	pages := map[string]string{}
	for name, path := range map[string]string{BundleFile: rec.Bundle, ReportFile: rec.Report} {
		if path != "" {
			if _, err := os.Stat(path); err == nil {
				pages[name] = path
			}
		}
	}
	check := &Pulled{Dir: snap.Dir, Bundle: pages[BundleFile]}
	if err := verifyPulled(check, seal); err != nil {
		return nil, fmt.Errorf("run %s %w against its seal %s here, so nothing was published: %v (see `agentlab verify %s`)", runID, ErrDoesNotVerify, seal, err, snap.Dir)
	}

	local, err := store.OpenFileStore(runlog.ArtifactsDir(dataDir))
	if err != nil {
		return nil, err
	}
	remote := &bucket.Blobs{B: b, Ctx: ctx}
	ids := snap.Artifacts(local)
	sizes := map[string]int64{}
	for _, s := range ids {
		id, err := hashid.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("run %s: artifact %q: %w", runID, s, err)
		}
		if fi, err := os.Stat(local.Path(id)); err == nil {
			sizes[s] = fi.Size()
		}
		if ok, err := remote.Has(id); err != nil {
			return nil, err
		} else if ok {
			continue
		}
		data, err := local.Get(id)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w (check the run with `agentlab verify %s`)", runID, err, snap.Dir)
		}
		if _, err := remote.Put(data); err != nil {
			return nil, err
		}
		out.Uploaded++
		out.Bytes += int64(len(data))
	}
	out.Artifacts = len(ids)

	m := Manifest{Format: ManifestFormat, Run: runID, Seal: rec.Seal, Artifacts: ids, Sizes: sizes, Pages: []string{}}
	files := map[string][]byte{}
	for name, path := range pages {
		page, err := os.ReadFile(path)
		if err != nil {
			continue // pages can be exported again from the evidence (agentlab report)
		}
		files[name] = page
		m.Pages = append(m.Pages, name)
	}
	if len(m.Pages) == 2 && m.Pages[0] > m.Pages[1] {
		m.Pages[0], m.Pages[1] = m.Pages[1], m.Pages[0]
	}
	events, err := os.ReadFile(snap.Dir + "/" + runlog.EventsFile)
	if err != nil {
		return nil, err
	}
	files[runlog.EventsFile] = events
	record, err := os.ReadFile(snap.Dir + "/" + runlog.RecordFile)
	if err != nil {
		return nil, err
	}
	files[runlog.RecordFile] = record
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	files[ManifestFile] = append(mb, '\n')
	restoredFiles := 0
	for _, name := range []string{runlog.EventsFile, runlog.RecordFile, BundleFile, ReportFile, ManifestFile} {
		data, ok := files[name]
		if !ok {
			continue
		}
		key := fileKey(b, runID, seal, name)
		if committed {
			// Under a committed seal only what is missing is written: a
			// HEAD, not a conditional PUT, so a run that is whole costs no
			// write at all.
			if ok, err := b.Exists(ctx, key); err != nil {
				return nil, err
			} else if ok {
				continue
			}
		}
		created, err := b.Create(ctx, key, data)
		if err != nil {
			return nil, err
		}
		if created {
			restoredFiles++
			out.Bytes += int64(len(data))
		}
	}
	if committed {
		out.Restored = out.Uploaded + restoredFiles
		return out, nil
	}

	held, created, err := b.CreateOrRead(ctx, sealKey(b, runID), sealFileContent(seal), maxSeal)
	if err != nil {
		return nil, err
	}
	if err := sameSeal(runID, seal, held); err != nil {
		return nil, err
	}
	out.Created = created
	return out, nil
}

// sameSeal compares the seal a bucket holds for run with ours.
func sameSeal(run string, ours hashid.ID, held []byte) error {
	theirs, err := parseSealFile(run, held)
	if err != nil {
		return err
	}
	if theirs != ours {
		return fmt.Errorf("run %s: %w: the bucket holds it sealed as %s, this data dir as %s; the same plan, inputs, data and seed should give the same seal (run both under the same SOURCE_DATE_EPOCH and sandbox backend), so compare the two with `agentlab runs events`", run, ErrNotReproducible, theirs, ours)
	}
	return nil
}
