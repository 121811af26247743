package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// prevCard is a card at version 3 that keeps versions 1 and 2; version 1's
// ratio reads a metric (base) that only version 1 defines.
const prevCard = `name: gmv
version: 3
metrics:
  total: {expr: '1 + 1', unit: CNY}
previous:
  - version: 2
    description: before the refund fix
    metrics:
      total: {expr: '1 + 2', unit: CNY}
  - version: 1
    metrics:
      base: {expr: '10'}
      total: {expr: 'base / 2', unit: CNY, decimals: 1}
`

func TestCardPreviousLintsClean(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gmv.card.yml")
	os.WriteFile(p, []byte(prevCard), 0o644)
	c, l := LoadCard(p)
	if c == nil || len(l) != 0 {
		t.Fatalf("card: %v\n%s", c, dump(l))
	}
	if c.Version != 3 || len(c.Metrics) != 1 {
		t.Errorf("current version = %+v", c)
	}
}

// TestCardPreviousErrors: every bad archived entry is reported at its
// position in the card file.
func TestCardPreviousErrors(t *testing.T) {
	head := "name: gmv\nversion: 2\nmetrics: {total: {expr: '1'}}\n" // previous: starts on line 4
	for name, tc := range map[string]struct{ prev, want string }{
		"not below current": {"previous:\n  - {version: 2, metrics: {total: {expr: '1'}}}\n", "5:15 E-SCHEMA-CARD-PREVIOUS"},
		"above current":     {"previous:\n  - {version: 7, metrics: {total: {expr: '1'}}}\n", "5:15 E-SCHEMA-CARD-PREVIOUS"},
		"duplicate": {"previous:\n  - {version: 1, metrics: {total: {expr: '1'}}}\n  - {version: 1, metrics: {total: {expr: '2'}}}\n",
			"6:15 E-SCHEMA-CARD-PREVIOUS"},
		"zero version":     {"previous:\n  - {version: 0, metrics: {total: {expr: '1'}}}\n", "5:15 E-SCHEMA-RANGE"},
		"no metrics":       {"previous:\n  - {version: 1}\n", "5:5 E-SCHEMA-REQUIRED"},
		"unknown key":      {"previous:\n  - {version: 1, name: x, metrics: {total: {expr: '1'}}}\n", "5:18 E-SCHEMA-UNKNOWN-KEY"},
		"not a list":       {"previous: {version: 1}\n", "4:11 E-SCHEMA-TYPE"},
		"bad expression":   {"previous:\n  - {version: 1, metrics: {total: {expr: 'upperr(1)'}}}\n", "5:43 E-EXPR-FUNC"},
		"unknown metric":   {"previous:\n  - {version: 1, metrics: {total: {expr: 'total2 + 1'}}}\n", "5:43 E-EXPR-METRIC"},
		"current's metric": {"previous:\n  - {version: 1, metrics: {x: {expr: 'total + 1'}}}\n", "5:39 E-EXPR-METRIC"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "gmv.card.yml")
			os.WriteFile(p, []byte(head+tc.prev), 0o644)
			c, l := LoadCard(p)
			var got []string
			for _, d := range l {
				if d.File != p {
					t.Errorf("diagnostic in %s, want %s", d.File, p)
				}
				got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Col, d.Code))
			}
			if c != nil || len(got) != 1 || got[0] != tc.want {
				t.Errorf("got %v (card %v), want [%s]", got, c, tc.want)
			}
		})
	}
}

// TestCardPreviousInPlan: a dual node puts the pinned archived version in
// the plan next to the current one; recompute and incomparable do not.
func TestCardPreviousInPlan(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "agentlab.toml"), nil, 0o644)
	os.MkdirAll(filepath.Join(dir, "cards"), 0o755)
	os.WriteFile(filepath.Join(dir, "cards", "gmv.card.yml"), []byte(prevCard), 0o644)
	for _, tc := range []struct {
		pin, policy string
		cards       []string
		err         string
	}{
		{"gmv@1", "dual", []string{"gmv@1", "gmv@3"}, ""},
		{"gmv@2", "dual", []string{"gmv@2", "gmv@3"}, ""},
		{"gmv@1", "recompute", []string{"gmv@3"}, ""},
		{"gmv@2", "incomparable", []string{"gmv@3"}, ""},
		{"gmv@3", "", []string{"gmv@3"}, ""},
		{"gmv@4", "dual", nil, "6:11 E-SCHEMA-CARD-VERSION"},
	} {
		t.Run(tc.pin+" "+tc.policy, func(t *testing.T) {
			node := "  - id: m\n    type: metrics\n    card: " + tc.pin + "\n"
			if tc.policy != "" {
				node += "    on_card_upgrade: " + tc.policy + "\n"
			}
			p := filepath.Join(dir, "f.flow.yml")
			os.WriteFile(p, []byte(hdr+node+"  - {id: o, type: output}\nedges: [m -> o]\n"), 0o644)
			pl, l := CompileFile(p, Options{})
			if tc.err != "" {
				if pl != nil || len(l) == 0 || fmt.Sprintf("%d:%d %s", l[0].Line, l[0].Col, l[0].Code) != tc.err {
					t.Fatalf("want %s, got %s", tc.err, dump(l))
				}
				return
			}
			if pl == nil {
				t.Fatal(dump(l))
			}
			var keys []string
			for k := range pl.Cards {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if fmt.Sprint(keys) != fmt.Sprint(tc.cards) {
				t.Errorf("plan cards = %v, want %v", keys, tc.cards)
			}
			if old, ok := pl.Cards["gmv@1"]; ok && (old.Version != 1 || old.Name != "gmv" || old.Metrics["total"].Expr != "base / 2") {
				t.Errorf("gmv@1 = %+v", old)
			}
			if m, _ := pl.Graph().NodeByID("m"); m.Str("card_resolved") != "gmv@3" {
				t.Errorf("card_resolved = %q", m.Str("card_resolved"))
			}
		})
	}
}

// FuzzLoadCard feeds arbitrary card files (archived versions included) to
// LoadCard: it must never panic, every diagnostic is inside the file, and
// a card it accepts keeps only versions below its own under previous.
func FuzzLoadCard(f *testing.F) {
	f.Add([]byte(prevCard))
	f.Add([]byte(goodCard(2) + "previous:\n  - {version: 1, metrics: {total: {expr: '1'}}}\n  - {version: 1, metrics: {}}\n"))
	f.Add([]byte(goodCard(2) + "previous: [{version: 3}, 7, {metrics: {a: {expr: 'a'}}}]\n"))
	if b, err := os.ReadFile("testdata/ok/cards/weekly-gmv.card.yml"); err == nil {
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "gmv.card.yml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Skip()
		}
		lc := loadCardFile(p)
		c, l := LoadCard(p)
		// Lines as YAML counts them: a lone \r breaks a line too.
		lines := len(newSource(p, data).lineStarts())
		for _, d := range l {
			if d.Line < 1 || d.Line > lines+1 || d.Col < 1 {
				t.Fatalf("diagnostic outside the file: %v", d)
			}
		}
		if c == nil {
			return
		}
		for v, pc := range lc.previous {
			if v >= c.Version || pc.Version != v || pc.Name != c.Name {
				t.Fatalf("previous version %d (%+v) kept for a card at version %d", v, pc, c.Version)
			}
		}
	})
}
