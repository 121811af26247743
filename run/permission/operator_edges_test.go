package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestAliasMatchNamesItsRule: a deny rule that matches only another
// spelling of the call (a URL's host resolved to an address) decides it,
// and the decision names that rule by its own number, so the operator
// edits the rule that fired.
func TestAliasMatchNamesItsRule(t *testing.T) {
	rules := []Rule{
		{Tool: "file_read", Decision: Allow},
		{Tool: "http_fetch", Arg: &ArgMatcher{Path: "url", Glob: "https://10.0.0.1/*"}, Decision: Deny},
		{Tool: "http_fetch", Decision: Allow},
	}
	aliases := func(tool string, args any) []any {
		return []any{map[string]any{"url": strings.Replace(args.(map[string]any)["url"].(string), "internal.example.com", "10.0.0.1", 1)}}
	}
	c := mustNew(t, Config{Rules: rules}, Options{Aliases: aliases})
	d, err := c.Check(context.Background(), "http_fetch", json.RawMessage(`{"url":"https://internal.example.com/x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed || d.Source != "rule 2" {
		t.Errorf("decision %+v; want refused by rule 2", d)
	}
}

// TestModeOutsideTheThreeIsRefused: a checker given a mode that is not
// ask, gated or always refuses to start, rather than treat the tool as
// one of them.
func TestModeOutsideTheThreeIsRefused(t *testing.T) {
	_, err := New(Config{Modes: map[string]Mode{"shell": "sometimes"}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `"sometimes" is not ask, gated or always`) {
		t.Fatalf("New: %v; want the mode refused", err)
	}
}

// TestGateTimeoutPrecedence: the caller's timeout wins over the
// configuration's gate_timeout_s, which wins over the default of 30 s.
func TestGateTimeoutPrecedence(t *testing.T) {
	for _, c := range []struct {
		cfg  int
		opt  time.Duration
		want time.Duration
	}{
		{0, 0, 30 * time.Second},
		{60, 0, 60 * time.Second},
		{60, time.Second, time.Second},
		{0, time.Second, time.Second},
		{60, time.Nanosecond, time.Nanosecond}, // the smallest timeout the caller can ask for is still the caller's
	} {
		ch := mustNew(t, Config{GateTimeoutS: c.cfg}, Options{GateTimeout: c.opt})
		if ch.opt.GateTimeout != c.want {
			t.Errorf("gate_timeout_s %d, option %v: %v; want %v", c.cfg, c.opt, ch.opt.GateTimeout, c.want)
		}
	}
}

// TestIndentedRuleHeaderPosition: a rule whose header is indented is
// reported at the column of its "[[", where an editor's cursor should go.
func TestIndentedRuleHeaderPosition(t *testing.T) {
	src := "[[permissions.rules]]\ntool = \"a\"\ndecision = \"allow\"\n  [[permissions.rules]]\ntool = \"b\"\n"
	_, ds := ParseConfig("agentlab.toml", []byte(src))
	if len(ds) != 1 || !strings.HasPrefix(ds[0].String(), "agentlab.toml:4:3: ") {
		t.Fatalf("diagnostics %v; want one at 4:3", ds)
	}
}

// TestShowArgsKeepsVisibleNeighbours: the runes just outside the ranges
// the prompt escapes are visible and shown as they are.
func TestShowArgsKeepsVisibleNeighbours(t *testing.T) {
	for _, r := range []rune{0x7e, 0xa0, 0x202f, 0x2065, 0x206a, 0x200d, 0x2010, 0x61b, 0x61d} {
		raw, _ := json.Marshal("a" + string(r) + "b")
		if got := compactJSON(raw); strings.Contains(got, fmt.Sprintf(`\u%04x`, r)) {
			t.Errorf("U+%04X is escaped: %s", r, got)
		}
	}
}

// TestRememberedCallsAreListedInOrder: the remembered decisions are
// written sorted (tool, then the hash of the arguments), whatever order
// they were made in, so the file a person reviews and the MAC over it do
// not change with the order of the prompts.
func TestRememberedCallsAreListedInOrder(t *testing.T) {
	var keys []CallKey
	for _, c := range []struct{ tool, args string }{{"b", `{}`}, {"a", `{"x":1}`}, {"a", `{"x":2}`}, {"a", `{"x":3}`}} {
		k, err := KeyOf(c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	var first []byte
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}} {
		m := NewMemory()
		for _, i := range order {
			m.AlwaysAllow(keys[i])
		}
		l := m.lists().AlwaysAllow
		for i := 1; i < len(l); i++ {
			if l[i-1].Tool > l[i].Tool || l[i-1].Tool == l[i].Tool && l[i-1].Args.Hex() >= l[i].Args.Hex() {
				t.Fatalf("order %v: %v is not sorted", order, l)
			}
		}
		b, _ := json.Marshal(m)
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Errorf("order %v gives %s, another order %s", order, b, first)
		}
	}
}

// TestGateThatTimesOutOnItsOwnRefuses: a gate whose own call ran out of
// time (a webhook's deadline, reported as such) refuses the call and says
// it timed out, even though the checker's own timeout has not passed.
func TestGateThatTimesOutOnItsOwnRefuses(t *testing.T) {
	gate := func(ctx context.Context, tool string, args json.RawMessage) (string, error) {
		return "approve", fmt.Errorf("webhook: %w", context.DeadlineExceeded)
	}
	c := mustNew(t, Config{Rules: []Rule{{Tool: "deploy", Decision: Ask}}, Modes: map[string]Mode{"deploy": ModeGated}}, Options{Gate: gate, GateTimeout: time.Minute})
	d, err := c.Check(context.Background(), "deploy", json.RawMessage(`{}`))
	if d.Allowed {
		t.Fatalf("a gate that timed out approved the call: %+v", d)
	}
	if msg := fmt.Sprint(err) + " " + d.Reason; !strings.Contains(msg, "timed out after 1m0s") {
		t.Errorf("decision %+v, error %v; want the timeout named", d, err)
	}
}

// TestRuleStringShowsItsArgumentMatcher: the rule a refusal suggests is
// written with its argument matcher, so that pasting it allows exactly
// the call that was refused, not every call of the tool.
func TestRuleStringShowsItsArgumentMatcher(t *testing.T) {
	r := Rule{Tool: "http_fetch", Arg: &ArgMatcher{Path: "url", Glob: "https://api.example.com/*"}, Decision: Allow}
	if s := r.String(); !strings.Contains(s, `path = "url"`) || !strings.Contains(s, `glob = "https://api.example.com/*"`) {
		t.Errorf("String() = %s; want the arg matcher in it", s)
	}
}

// TestNewLeavesTheCallersRulesAlone: New compiles its own copies of the
// flow's rules; the caller's rule values (shared by other checkers, read
// by other goroutines) are not written.
func TestNewLeavesTheCallersRulesAlone(t *testing.T) {
	arg := &ArgMatcher{Path: "path", Glob: "data/*"}
	before := *arg
	rules := []Rule{{Tool: "file_read", Arg: arg, Decision: Allow}}
	mustNew(t, Config{}, Options{FlowRules: rules})
	if !reflect.DeepEqual(*arg, before) || rules[0].tool != nil {
		t.Error("New wrote into the caller's flow rules")
	}
}

// TestOperatorAllowsOnlyWhenNeitherFileSaysNo: a tool is the operator's
// to allow only when neither the project's nor the user's file denies it
// or asks for it.
func TestOperatorAllowsOnlyWhenNeitherFileSaysNo(t *testing.T) {
	cfg := func(v Verdict) *Config { return &Config{Rules: []Rule{{Tool: "shell", Decision: v}}} }
	for _, c := range []struct {
		project, user *Config
		want          bool
	}{
		{cfg(Allow), cfg(Allow), true},
		{cfg(Allow), nil, true},
		{cfg(Deny), cfg(Allow), false},
		{cfg(Allow), cfg(Deny), false},
		{cfg(Ask), cfg(Allow), false},
		{cfg(Allow), cfg(Ask), false},
	} {
		if got := OperatorAllows(c.project, c.user, "shell"); got != c.want {
			t.Errorf("project %v, user %v: %v", c.project.verdict("shell"), c.user.verdict("shell"), got)
		}
	}
}

// TestOneByteArgumentsReachTheRules: arguments of a single byte (a bare
// digit) are decoded and handed to Normalize and the rules like any other,
// not taken for no arguments at all.
func TestOneByteArgumentsReachTheRules(t *testing.T) {
	var seen any = "not called"
	c := mustNew(t, Config{}, Options{Normalize: func(tool string, args any) any { seen = args; return args }})
	if _, err := c.Check(context.Background(), "calc", json.RawMessage(`7`)); err != nil {
		t.Fatal(err)
	}
	if seen != float64(7) {
		t.Errorf("Normalize saw %#v; want 7", seen)
	}
}
