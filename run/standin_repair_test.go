package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/standin"
	"github.com/agentlab/agentlab/run/engine"
)

// TestRepairTurnNamesTheAlternatives: a model that guesses — a bare
// number, a metric name that does not exist, a column that does not
// exist — gets a repair turn that names, for each, the marker to write
// (the metric whose value the number is, the nearest real names) and
// repeats the catalog entries they come from; it then repairs the report
// and the run is formal.
func TestRepairTurnNamesTheAlternatives(t *testing.T) {
	srv := standin.New()
	defer srv.Close()
	remoteEnv(t, srv)
	guess := "GMV reached 35,900 in [[i:week]]. Orders were [[m:order]] [[see:m:gmv]]. The east region sold [[v:Q1.r0.gvm]]."
	srv.Fail(standin.Fault{Text: &guess})
	f := filepath.Join("..", "examples", "traceable-weekly", "flow.yml")
	p, h := compileFlow(t, f)
	out, err := Start(context.Background(), Options{DataDir: t.TempDir(), Plan: p, PlanHash: h, Source: f, Epoch: &epoch, Actor: "ex", Provider: "anthropic", Model: "stand-in-1"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusSucceeded || out.Tier != "formal" {
		t.Fatalf("%s %q: %s", out.Status, out.Tier, out.Error)
	}
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Request.Messages
	repair := msgs[len(msgs)-1].Content
	for _, want := range []string{
		"write instead: [[m:gmv]]\n",                     // the metric whose value it is
		"write instead: [[m:orders]] or [[m:avg_order]]", // nearest to "order" first
		"write instead: [[v:Q1.r0.gmv]]",                 // nearest column to "gvm"
		"- [[m:gmv]] = 35,900 CNY\n",                     // the catalog entries, repeated
		"  r0: region=east | orders=38 | gmv=10480\n",
	} {
		if !strings.Contains(repair, want) {
			t.Errorf("the repair turn lacks %q:\n%s", want, repair)
		}
	}
	if strings.Contains(repair, "NAME") || strings.Contains(repair, "COLUMN") {
		t.Errorf("a placeholder stands where real names exist:\n%s", repair)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "evidence.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), indent(repair)) {
		t.Errorf("docs/evidence.md does not show this repair turn:\n%s", indent(repair))
	}
}
