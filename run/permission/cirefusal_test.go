package permission

import (
	"context"
	"strings"
	"testing"
)

// In CI a call that needs approval is refused with a change that would
// allow it. Each case sets up the rules that made it ask, checks the
// sentence names the right change (never an operator rule placed where it
// cannot win), makes that change, and checks the call is then allowed.
func TestCIRefusalSuggestsARuleThatWorks(t *testing.T) {
	allow := func(tool string) Rule { return Rule{Tool: tool, Decision: Allow} }
	ask := func(tool string) Rule { return Rule{Tool: tool, Decision: Ask} }
	type setup struct {
		cfg  Config
		user []Rule
		flow []Rule
	}
	for _, tc := range []struct {
		name     string
		before   setup
		want     []string
		dontWant []string
		after    setup // the change the sentence asks for
	}{
		{
			name:     "a node rule asks first, the operator allows",
			before:   setup{cfg: Config{Rules: []Rule{allow("lookup")}}, flow: []Rule{ask("*")}},
			want:     []string{"remove rule 1 of the agent node's permissions", "a flow's ask holds whatever agentlab.toml allows"},
			dontWant: []string{"placed before rule", "add to agentlab.toml"},
			after:    setup{cfg: Config{Rules: []Rule{allow("lookup")}}},
		},
		{
			name:     "a node rule asks, no operator rule",
			before:   setup{flow: []Rule{allow("other"), ask("look*")}},
			want:     []string{"remove rule 2 of the agent node's permissions", `and add to agentlab.toml: [[permissions.rules]] tool = "lookup" decision = "allow"`},
			dontWant: []string{"placed before rule"},
			after:    setup{cfg: Config{Rules: []Rule{allow("lookup")}}, flow: []Rule{allow("other")}},
		},
		{
			name:   "a node rule and an operator rule both ask",
			before: setup{cfg: Config{Rules: []Rule{allow("x"), ask("*")}}, flow: []Rule{ask("lookup")}},
			want:   []string{"remove rule 1 of the agent node's permissions", "and add to agentlab.toml (placed before rule 2)"},
			after:  setup{cfg: Config{Rules: []Rule{allow("x"), allow("lookup"), ask("*")}}},
		},
		{
			name:     "a user rule asks",
			before:   setup{cfg: Config{Rules: []Rule{allow("*")}}, user: []Rule{allow("x"), ask("*")}},
			want:     []string{"add to your config.toml (placed before its rule 2, which says ask; agentlab.toml cannot widen it)"},
			dontWant: []string{"add to agentlab.toml"},
			after:    setup{cfg: Config{Rules: []Rule{allow("*")}}, user: []Rule{allow("x"), allow("lookup"), ask("*")}},
		},
		{
			name:   "a project rule asks",
			before: setup{cfg: Config{Rules: []Rule{allow("file_*"), ask("*")}}},
			want:   []string{"add to agentlab.toml (placed before rule 2)"},
			after:  setup{cfg: Config{Rules: []Rule{allow("file_*"), allow("lookup"), ask("*")}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			decide := func(s setup) Decision {
				c := mustNew(t, s.cfg, Options{UserRules: s.user, FlowRules: s.flow})
				d, err := c.Check(context.Background(), "lookup", nil)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			d := decide(tc.before)
			if d.Allowed || d.Source != SourceCIRefused {
				t.Fatalf("before: %+v", d)
			}
			for _, w := range tc.want {
				if !strings.Contains(d.Reason, w) {
					t.Errorf("the refusal does not say %q:\n%s", w, d.Reason)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(d.Reason, w) {
					t.Errorf("the refusal says %q, which would not work:\n%s", w, d.Reason)
				}
			}
			if d := decide(tc.after); !d.Allowed {
				t.Errorf("after the suggested change the call is still refused: %+v", d)
			}
		})
	}
}
