package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

func TestKindOf(t *testing.T) {
	cases := []struct {
		path string
		data string
		want FileKind
	}{
		{"a.flow.yml", "", KindFlow},
		{"a.flow.yaml", "", KindFlow},
		{"x/b.card.yml", "", KindCard},
		{"p.patch.yml", "", KindPatch},
		{"plain.yml", "agentlab: 1\nname: x\n", KindFlow},
		{"plain.yaml", "# c\n\"agentlab\" : 1\n", KindFlow},
		{"plain.yml", "name: x\n  agentlab: 1\n", KindUnknown},
		{"plain.yml", "", KindUnknown},
		{"ci.yml", "on: push\n", KindUnknown},
		{"notes.md", "agentlab: 1", KindUnknown},
	}
	for _, c := range cases {
		if got := KindOf(c.path, []byte(c.data)); got != c.want {
			t.Errorf("KindOf(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestLintPathsWalk(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := "agentlab: 1\nname: t\nnodes: [{id: a, type: nope}]\n"
	write("agentlab.toml", "")
	write("flows/a.flow.yml", bad)
	write("flows/plain.yml", bad)              // a flow by its agentlab: key
	write("flows/ci.yml", "on: push\n")        // not a flow: a warning naming it
	write("testdata/b.flow.yml", bad)          // skipped while walking
	write("node_modules/c.flow.yml", bad)      // skipped
	write(".agentlab/d.flow.yml", bad)         // skipped
	write("cards/bad.card.yml", "name: bad\n") // a card: linted
	l, err := LintPaths([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]int{}
	for _, d := range l {
		rel, _ := filepath.Rel(dir, d.File)
		files[rel]++
	}
	for _, want := range []string{"flows/a.flow.yml", "flows/plain.yml", "cards/bad.card.yml", "flows/ci.yml"} {
		if files[want] == 0 {
			t.Errorf("%s was not linted: %v", want, files)
		}
	}
	if len(files) != 4 || files["flows/ci.yml"] != 1 {
		t.Errorf("linted files = %v", files)
	}
	// A testdata file named explicitly is linted.
	l, err = LintPaths([]string{filepath.Join(dir, "testdata", "b.flow.yml")}, Options{})
	if err != nil || !l.HasErrors() {
		t.Errorf("named testdata file not linted: %v %v", err, l)
	}
}

// TestTierSeverity: governance findings are silent at exploratory,
// warnings at published, errors at governed; Options.Tier never weakens.
func TestTierSeverity(t *testing.T) {
	flow := func(tier string) string {
		return "agentlab: 1\nname: t\ntier: " + tier + "\nnodes:\n  - {id: s, type: supervisor, prompt: go, workers: [{id: w, role: r}]}\n  - {id: o, type: output}\nedges: [s -> o]\n"
	}
	cases := []struct {
		declared, asked string
		want            diag.Severity // "" = not reported
	}{
		{"exploratory", "", ""},
		{"published", "", diag.Warning},
		{"governed", "", diag.Error},
		{"exploratory", "published", diag.Warning},
		{"exploratory", "governed", diag.Error},
		{"governed", "published", diag.Error},
		{"governed", "exploratory", diag.Error},
	}
	for _, c := range cases {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.flow.yml")
		os.WriteFile(p, []byte(flow(c.declared)), 0o644)
		var got diag.Severity
		for _, d := range LintFile(p, Options{Tier: c.asked}) {
			if d.Code == "E-GOV-SUPERVISOR" {
				got = d.Severity
			}
		}
		if got != c.want {
			t.Errorf("declared %s, --tier %q: severity %q, want %q", c.declared, c.asked, got, c.want)
		}
	}
}

func TestLoadCard(t *testing.T) {
	c, l := LoadCard("testdata/ok/cards/weekly-gmv.card.yml")
	if c == nil || len(l) != 0 {
		t.Fatalf("card: %v\n%s", c, dump(l))
	}
	if c.Name != "weekly-gmv" || c.Version != 2 || len(c.Metrics) != 3 || *c.Metrics["gmv"].Decimals != 0 {
		t.Errorf("card = %+v", c)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.card.yml")
	os.WriteFile(p, []byte("name: x\nversion: 0\nmetrics:\n  a: {expr: \"upperr(1)\", format: pct}\n"), 0o644)
	c, l = LoadCard(p)
	codes := map[string]bool{}
	for _, d := range l {
		codes[d.Code] = true
	}
	if c != nil || !codes["E-SCHEMA-RANGE"] || !codes["E-SCHEMA-ENUM"] || !codes["E-EXPR-FUNC"] {
		t.Errorf("bad card: %v\n%s", c, dump(l))
	}
}

// TestPlanShape checks what the compiler puts into a plan beyond the
// golden files: inlined code, resolved cards, subflows by hash, defaults.
func TestPlanShape(t *testing.T) {
	p, l := CompileFile("testdata/ok/all-types.flow.yml", Options{})
	if p == nil {
		t.Fatal(dump(l))
	}
	g := p.Graph()
	score, _ := g.NodeByID("score")
	if score.Str("code") == "" || score.Str("file") != "code/score.py" || score.Str("evidence_role") != "compute" {
		t.Errorf("code node spec = %v", score.Spec)
	}
	sum, _ := g.NodeByID("summary")
	if sp := p.Subflows[sum.Str("plan")]; sp == nil || sp.Name != "summarise" {
		t.Errorf("subflow not stored under its hash: %v", sum.Spec)
	}
	each, _ := g.NodeByID("each")
	if each.Body == nil || len(each.Body.Nodes) != 2 || len(each.Body.Edges) != 1 {
		t.Errorf("loop body = %+v", each.Body)
	}
	think, _ := g.NodeByID("think")
	if think.Retry.Max != 2 || think.Retry.BackoffS != 1.5 || think.TimeoutS != 60 || think.AssignTo != "draft" {
		t.Errorf("common fields = %+v", think)
	}
	docs, _ := g.NodeByID("docs")
	if docs.Float("alpha") != 0.5 || docs.Int("top_k") != 3 {
		t.Errorf("retrieve defaults = %v", docs.Spec)
	}
	w, _ := CompileFile("testdata/ok/weekly-sales.flow.yml", Options{})
	if w == nil || w.Cards["weekly-gmv@2"].Version != 2 {
		t.Fatalf("cards = %v", w)
	}
	kpi, _ := w.Graph().NodeByID("kpi")
	if kpi.Str("card_resolved") != "weekly-gmv@2" {
		t.Errorf("kpi spec = %v", kpi.Spec)
	}
	if w.Sources["sales"].Path != "data/sales.csv" || w.Settings.Parallel != 4 || w.Tier != "governed" {
		t.Errorf("top level = %+v %+v", w.Sources, w.Settings)
	}
}

// TestPinAndCardUpgrade: a correct pin compiles; an upgraded card is
// accepted when the node declares on_card_upgrade.
func TestPinAndCardUpgrade(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "agentlab.toml"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "sub.flow.yml"), []byte(okSub), 0o644)
	os.MkdirAll(filepath.Join(dir, "cards"), 0o755)
	os.WriteFile(filepath.Join(dir, "cards", "gmv.card.yml"), []byte(goodCard(3)+"previous:\n  - {version: 1, metrics: {total: {expr: '2 + 2'}}}\n"), 0o644)
	sp, l := CompileFile(filepath.Join(dir, "sub.flow.yml"), Options{})
	if sp == nil {
		t.Fatal(dump(l))
	}
	h, _ := sp.Hash()
	flow := hdr + "  - id: s\n    type: subgraph\n    flow: sub.flow.yml\n    pin: " + h.String() +
		"\n    inputs: {week: \"2026-W1\"}\n  - {id: m, type: metrics, card: gmv@1, on_card_upgrade: dual}\n  - {id: o, type: output}\nedges: [s -> m -> o]\n"
	p := filepath.Join(dir, "f.flow.yml")
	os.WriteFile(p, []byte(flow), 0o644)
	pl, l := CompileFile(p, Options{})
	if pl == nil || len(l) != 0 {
		t.Fatalf("compile: %s", dump(l))
	}
	m, _ := pl.Graph().NodeByID("m")
	if m.Str("card_resolved") != "gmv@3" || m.Str("card") != "gmv@1" || pl.Cards["gmv@3"].Version != 3 ||
		pl.Cards["gmv@1"].Metrics["total"].Expr != "2 + 2" {
		t.Errorf("metrics spec = %v, cards = %v", m.Spec, pl.Cards)
	}
	if pl.Subflows[h.String()] == nil {
		t.Errorf("subflow missing")
	}
}

func TestInputTypes(t *testing.T) {
	flow := "agentlab: 1\nname: t\ninputs:\n  a: {type: integer, default: x}\n  b: {type: string, enum: [x, 1]}\n  c: {type: string, enum: [x, y], default: z}\n  d: {type: number, default: 1.5}\nnodes: [{id: o, type: output}]\n"
	p := filepath.Join(t.TempDir(), "f.flow.yml")
	os.WriteFile(p, []byte(flow), 0o644)
	var got []string
	for _, d := range LintFile(p, Options{}) {
		got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Col, d.Code))
	}
	want := []string{"4:31 E-SCHEMA-TYPE", "5:31 E-SCHEMA-TYPE", "6:44 E-SCHEMA-ENUM"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
