package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentlab/agentlab/run/runlog"
)

// TestKillAroundDualMetricsNodeResumesBothSets kills agentlab right after
// each event of a metrics node that computes two versions of its card
// (on_card_upgrade: dual) and right after the event that follows it, then
// also kills the resume one event later. The resumed run must show both
// metric sets exactly as an uninterrupted run does: same outputs, same
// report.html and bundle.html, and a bundle that verifies.
func TestKillAroundDualMetricsNodeResumesBothSets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a few dozen processes")
	}
	exe := agentlabExe(t)
	flow, err := filepath.Abs("testdata/kill-dual/flow.yml")
	if err != nil {
		t.Fatal(err)
	}
	refDir := t.TempDir()
	ref, _ := finishRun(t, exe, flow, refDir, nil)
	snap, err := runlog.OpenReadOnly(refDir, ref.Run)
	if err != nil {
		t.Fatal(err)
	}
	var points []int
	for i, e := range snap.Events {
		if e.Node == "kpi" {
			points = append(points, i+1)
		}
	}
	if len(points) == 0 {
		t.Fatal("the reference run has no event of the metrics node kpi")
	}
	points = append(points, points[len(points)-1]+1)
	for _, n := range points {
		for _, crashes := range [][]string{
			{fmt.Sprintf("event:%d", n)},
			{fmt.Sprintf("event:%d", n), fmt.Sprintf("event:%d", n+1)},
		} {
			what := fmt.Sprintf("dual metrics, crash after %v", crashes)
			dir := t.TempDir()
			got, crashed := finishRun(t, exe, flow, dir, crashes)
			if crashed == 0 {
				t.Fatalf("%s: no process crashed", what)
			}
			if !reflect.DeepEqual(got.Outputs, ref.Outputs) {
				t.Fatalf("%s: outputs differ:\n%v\nwant\n%v", what, got.Outputs, ref.Outputs)
			}
			samePages(t, exe, ref, got, what)
			checkRunClean(t, dir, got.Run)
		}
	}
}
