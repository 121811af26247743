package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/standin"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

// remoteEnv points both remote providers at srv and keeps the machine's
// own configuration and keys out of the test.
func remoteEnv(t *testing.T, srv *standin.Server) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIBase())
	t.Setenv("ANTHROPIC_BASE_URL", srv.AnthropicBase())
}

// TestEvidenceExamplesOverRealProtocols: a model that cites only what the
// request shows it — the stand-in server, which reads the evidence from the
// catalog in the system prompt it received — brings each evidence example
// to its documented outcome over the OpenAI and the Anthropic protocol,
// streamed and not, on the first attempt: no report is repaired, the
// contracted ones are formal, and the run's usage is what the server
// billed.
func TestEvidenceExamplesOverRealProtocols(t *testing.T) {
	tiers := map[string]string{"traceable-weekly": "formal", "metric-brief": "formal", "data-qa": "", "knowledge-qa": ""}
	for _, proto := range []string{"openai", "anthropic"} {
		for _, streamed := range []bool{true, false} {
			for _, ex := range []string{"traceable-weekly", "metric-brief", "data-qa", "knowledge-qa"} {
				name := proto + "/" + ex
				if !streamed {
					name += "/whole"
				}
				t.Run(name, func(t *testing.T) {
					srv := standin.New()
					defer srv.Close()
					srv.NoStream(!streamed)
					remoteEnv(t, srv)
					f := filepath.Join("..", "examples", ex, "flow.yml")
					p, h := compileFlow(t, f)
					data := t.TempDir()
					out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: f, Epoch: &epoch,
						Actor: "ex", Provider: proto, Model: "stand-in-1"})
					if err != nil {
						t.Fatal(err)
					}
					if out.Status != engine.StatusSucceeded {
						t.Fatalf("%s: %s", out.Status, out.Error)
					}
					if out.Tier != tiers[ex] {
						t.Errorf("tier %q (%v), want %q", out.Tier, out.TierReasons, tiers[ex])
					}
					evs := eventsOf(t, data, out.RunID)
					for _, e := range evs {
						if e.Type == "report.repair" {
							t.Errorf("report %s needed a repair turn: %s", e.Node, e.Data)
						}
					}
					reports := 0
					for _, c := range srv.Requests() {
						if strings.Contains(c.Request.System, "Citable evidence") {
							reports++
						}
					}
					if reports != 1 {
						t.Errorf("%d report requests reached the server, want 1", reports)
					}
					var in, outTok int
					for _, n := range out.Nodes {
						in += n.Usage.InputTokens
						outTok += n.Usage.OutputTokens
					}
					if b := srv.Billed(); in != b.InputTokens || outTok != b.OutputTokens {
						t.Errorf("the run counted %d/%d tokens, the server billed %d/%d", in, outTok, b.InputTokens, b.OutputTokens)
					}
				})
			}
		}
	}
}

// TestEvidenceCatalogGolden: the catalog traceable-weekly's report node
// sends is sealed as an artifact named by its record, is byte-identical to
// testdata/catalog/traceable-weekly.txt, and is the example shown in
// docs/evidence.md.
func TestEvidenceCatalogGolden(t *testing.T) {
	srv := standin.New()
	defer srv.Close()
	remoteEnv(t, srv)
	f := filepath.Join("..", "examples", "traceable-weekly", "flow.yml")
	p, h := compileFlow(t, f)
	data := t.TempDir()
	out, err := Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: f, Epoch: &epoch, Actor: "ex", Provider: "openai", Model: "stand-in-1"})
	if err != nil || out.Status != engine.StatusSucceeded {
		t.Fatalf("%v %+v", err, out)
	}
	snap, err := runlog.OpenReadOnly(data, out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	catalog := catalogOf(t, data, snap, "brief")
	golden := filepath.Join("testdata", "catalog", "traceable-weekly.txt")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(catalog), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if catalog != string(want) {
		t.Errorf("catalog changed (UPDATE_GOLDEN=1 rewrites %s; update docs/evidence.md with it):\n%s", golden, catalog)
	}
	var sent bool
	for _, c := range srv.Requests() {
		sent = sent || strings.Contains(c.Request.System, strings.TrimRight(catalog, "\n"))
	}
	if !sent {
		t.Error("the sealed catalog is not the text the model was sent")
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "evidence.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), indent(catalog)) {
		t.Errorf("docs/evidence.md does not show the catalog as the example (indented by four spaces):\n%s", indent(catalog))
	}
}

// catalogOf reads the catalog artifact named by node's node.finished.
func catalogOf(t *testing.T, data string, snap *runlog.Snapshot, node string) string {
	t.Helper()
	for _, e := range snap.Events {
		if e.Type != engine.EvNodeFinished || e.Node != node {
			continue
		}
		var rec struct {
			Catalog string `json:"catalog_artifact"`
		}
		if err := json.Unmarshal(e.Data, &rec); err != nil {
			t.Fatal(err)
		}
		art := rec.Catalog
		id, err := hashid.Parse(art)
		if err != nil {
			t.Fatalf("catalog_artifact %q: %v", art, err)
		}
		st, err := store.OpenFileStore(runlog.ArtifactsDir(data))
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Fatalf("no node.finished of %s", node)
	return ""
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}
