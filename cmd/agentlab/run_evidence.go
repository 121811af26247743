package main

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/verify"
)

// writeRunEvidence writes report.html and bundle.html for a sealed run
// into its out directory and sets o.Report and o.Bundle. With key the seal
// is signed first and the signature recorded in run.json, so that the
// bundle (and every later export) carries it. Both files are derived from
// the sealed events and artifacts only (package evidence/render), so the
// same run always gives the same bytes.
func writeRunEvidence(dataDir string, o *run.Outcome, key ed25519.PrivateKey) error {
	if o.Seal == "" || o.OutDir == "" {
		return nil
	}
	if key != nil {
		if err := signRun(dataDir, o, key); err != nil {
			return err
		}
	}
	snap, err := runlog.OpenReadOnly(dataDir, o.RunID)
	if err != nil {
		return err
	}
	st, err := store.OpenFileStore(filepath.Join(dataDir, "artifacts"))
	if err != nil {
		return err
	}
	doc, err := render.LoadRun(o.RunID, snap.Events, func(id hashid.ID) ([]byte, error) { return st.Get(id) })
	if err != nil {
		return fmt.Errorf("report of run %s: %w", o.RunID, err)
	}
	page, err := render.HTML(doc)
	if err != nil {
		return fmt.Errorf("report of run %s: %w", o.RunID, err)
	}
	reportPath := filepath.Join(o.OutDir, "report.html")
	if err := fsutil.WriteFileAtomic(reportPath, page, 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := verify.WriteBundle(&b, snap.Dir, verify.BundleOptions{}); err != nil {
		return fmt.Errorf("bundle of run %s: %w", o.RunID, err)
	}
	bundlePath := filepath.Join(o.OutDir, "bundle.html")
	if err := fsutil.WriteFileAtomic(bundlePath, b.Bytes(), 0o644); err != nil {
		return err
	}
	o.Report, o.Bundle = reportPath, bundlePath
	return nil
}

// signRun signs the seal of a finished run and records the signature in
// its run.json.
func signRun(dataDir string, o *run.Outcome, key ed25519.PrivateKey) error {
	seal, err := hashid.Parse(o.Seal)
	if err != nil {
		return err
	}
	rl, err := runlog.Open(dataDir, o.RunID)
	if err != nil {
		return err
	}
	defer rl.Close()
	sig := verify.Sign(seal, key)
	rec := rl.Record()
	rec.Signature, rec.PublicKey = sig.Sig, sig.PublicKey
	return rl.WriteRecord(rec)
}

// exportEvidence writes a succeeded run's report and bundle. The run is
// sealed either way; a failure here is reported on stderr with the command
// that retries the export, and the run's result is still printed.
func exportEvidence(dataDir string, o *run.Outcome, key ed25519.PrivateKey) {
	if o != nil && o.Seal == "" && key != nil && o.RunID != "" {
		fmt.Fprintf(os.Stderr, "note: run %s is not sealed (status %s), so nothing was signed; pass --sign to the resume that finishes it, or sign it later with: agentlab report %s --sign KEY\n", o.RunID, o.Status, o.RunID)
	}
	if o == nil || o.Seal == "" {
		return
	}
	if err := writeRunEvidence(dataDir, o, key); err != nil {
		fmt.Fprintf(os.Stderr, "warning: the report of run %s could not be written: %v\nwrite it again with: agentlab report %s\n", o.RunID, err, o.RunID)
		return
	}
	if err := recordExport(dataDir, o); err != nil {
		fmt.Fprintf(os.Stderr, "warning: run %s: the report's location could not be recorded in run.json (agentlab report %s will write to %s unless given -o): %v\n",
			o.RunID, o.RunID, filepath.Join(dataDir, "out", o.RunID), err)
	}
}

// recordExport writes the absolute paths of the report and bundle a run
// wrote into its run.json, so that `agentlab report RUN` re-exports them
// to the same place whatever the current directory. The seal does not
// cover run.json, so recording them after the seal changes nothing that
// verify checks.
func recordExport(dataDir string, o *run.Outcome) error {
	rep, err := filepath.Abs(o.Report)
	if err != nil {
		return err
	}
	bun, err := filepath.Abs(o.Bundle)
	if err != nil {
		return err
	}
	rl, err := runlog.Open(dataDir, o.RunID)
	if err != nil {
		return err
	}
	defer rl.Close()
	rec := rl.Record()
	if rec.Report == rep && rec.Bundle == bun {
		return nil
	}
	rec.Report, rec.Bundle = rep, bun
	return rl.WriteRecord(rec)
}

// signingKey reads the --sign key before anything runs, so that a wrong
// path fails the command up front rather than after the run.
func signingKey(path string) (ed25519.PrivateKey, error) {
	if path == "" {
		return nil, nil
	}
	k, err := verify.LoadPrivateKey(path)
	if err != nil {
		return nil, exitf(exitUsage, "--sign %s: %v; create a key pair with agentlab keys generate -o %s", path, err, path)
	}
	return k, nil
}

// optional is a JSON string or null.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
