package compile

import (
	"os"
	"path/filepath"
	"testing"
)

// A report node that does not say on_violation gets it from the tier the
// flow is compiled at: mark when exploratory, fail when published or
// governed (also when --tier makes an exploratory flow stricter); a value
// the node writes is kept.
func TestViolationDefaultFollowsTier(t *testing.T) {
	flow := func(tier, extra string) string {
		s := "agentlab: 1\nname: brief\n"
		if tier != "" {
			s += "tier: " + tier + "\n"
		}
		return s + "nodes:\n  - id: r\n    type: report\n    prompt: hi\n" + extra
	}
	for _, tc := range []struct {
		name, tier, asked, extra, want string
	}{
		{"undeclared tier", "", "", "", "mark"},
		{"exploratory", "exploratory", "", "", "mark"},
		{"published", "published", "", "", "fail"},
		{"linted as published", "", "published", "", "fail"},
		{"exploratory says fail", "", "", "    on_violation: fail\n", "fail"},
		{"published says mark", "published", "", "    on_violation: mark\n", "mark"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "flow.yml")
			if err := os.WriteFile(path, []byte(flow(tc.tier, tc.extra)), 0o644); err != nil {
				t.Fatal(err)
			}
			p, l := CompileFile(path, Options{Tier: tc.asked})
			if p == nil {
				t.Fatalf("no plan: %s", dump(l))
			}
			if got := p.Nodes[0].Str("on_violation"); got != tc.want {
				t.Errorf("on_violation %q, want %q", got, tc.want)
			}
		})
	}
}
