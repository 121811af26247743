package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNoExportSealsTheSameWithoutAnOutDir checks what an evaluation's
// case run leaves out: no out directory (outputs.json, issuance.json), and
// nothing else changes — the outputs and the seal are those of the same
// run with its exported copies.
func TestNoExportSealsTheSameWithoutAnOutDir(t *testing.T) {
	p, h := compileFlow(t, "../examples/traceable-weekly/flow.yml")
	epoch := time.Unix(1700000000, 0).UTC()
	start := func(noExport bool) (*Outcome, string) {
		data := t.TempDir()
		out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h,
			Source: "../examples/traceable-weekly/flow.yml", Epoch: &epoch, NoExport: noExport})
		if err != nil {
			t.Fatal(err)
		}
		if out.Seal == "" {
			t.Fatalf("run ended %s without a seal: %s", out.Status, out.Error)
		}
		return out, data
	}
	with, _ := start(false)
	without, data := start(true)
	if with.Seal != without.Seal || with.RunID != without.RunID {
		t.Errorf("run %s sealed %s without its exports, %s %s with them", without.RunID, without.Seal, with.RunID, with.Seal)
	}
	if with.Tier == "" || with.Tier != without.Tier || len(without.Outputs) == 0 {
		t.Errorf("tier %q / %q, outputs %v", with.Tier, without.Tier, without.Outputs)
	}
	if _, err := os.Stat(filepath.Join(data, "out")); !os.IsNotExist(err) {
		t.Errorf("an out directory was written: %v", err)
	}
}
