package permission

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// scripted is a Prompter that answers from a list and records requests.
type scripted struct {
	mu      sync.Mutex
	answers []Answer
	asked   []Request
	err     error
}

func (s *scripted) Ask(_ context.Context, r Request) (Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, r)
	if s.err != nil {
		return AnswerNo, s.err
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func mustNew(t *testing.T, cfg Config, opt Options) *Checker {
	t.Helper()
	c, err := New(cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRuleOrder(t *testing.T) {
	rules := []Rule{
		{Tool: "http_fetch", Arg: &ArgMatcher{Path: "url", Glob: "https://internal.example.com/*"}, Decision: Deny},
		{Tool: "http_fetch", Arg: &ArgMatcher{Path: "$.url", Regexp: `^https://api\.example\.com/`}, Decision: Allow},
		{Tool: "file_*", Decision: Allow},
		{Tool: "db_query__*", Arg: &ArgMatcher{Path: "params.week", Glob: "2026-W*"}, Decision: Allow},
		{Tool: "db_query__*", Decision: Ask},
		{Tool: "*", Decision: Deny},
	}
	c := mustNew(t, Config{Rules: rules}, Options{})
	tests := []struct {
		tool, args string
		allowed    bool
		source     string
	}{
		{"http_fetch", `{"url":"https://internal.example.com/a/b"}`, false, "rule 1"},
		{"http_fetch", `{"url":"https://api.example.com/v1/x"}`, true, "rule 2"},
		{"http_fetch", `{"url":"https://other.example.com/"}`, false, "rule 6"},
		{"file_read", `{"path":"a"}`, true, "rule 3"},
		{"db_query__sales", `{"sql":"x","params":{"week":"2026-W47"}}`, true, "rule 4"},
		{"db_query__sales", `{"sql":"x","params":{"week":2026}}`, false, SourceCIRefused}, // number does not match the glob; rule 5 asks; no terminal
		{"db_query__sales", `{"sql":"x"}`, false, SourceCIRefused},
		{"shell", `{}`, false, "rule 6"},
	}
	for _, tt := range tests {
		d, err := c.Check(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed != tt.allowed || d.Source != tt.source || d.Reason == "" {
			t.Errorf("%s %s = %+v, want allowed=%v source=%s", tt.tool, tt.args, d, tt.allowed, tt.source)
		}
	}
	// Reversed, the broad allow shadows the narrow deny: order matters.
	c2 := mustNew(t, Config{Rules: []Rule{rules[2], {Tool: "file_read", Arg: &ArgMatcher{Path: "path", Glob: "secrets/*"}, Decision: Deny}}}, Options{})
	d, _ := c2.Check(context.Background(), "file_read", json.RawMessage(`{"path":"secrets/key"}`))
	if !d.Allowed || d.Source != "rule 1" {
		t.Errorf("first match must win: %+v", d)
	}
}

func TestRememberedBeforeRules(t *testing.T) {
	mem := NewMemory()
	k, _ := KeyOf("http_fetch", json.RawMessage(`{"url":"https://a/","x":1}`))
	mem.AlwaysAllow(k)
	c := mustNew(t, Config{Rules: []Rule{{Tool: "http_fetch2", Decision: Deny}, {Tool: "*", Decision: Ask}}}, Options{Memory: mem})
	// Same call with keys reordered and spacing changed: canonical key.
	d, _ := c.Check(context.Background(), "http_fetch", json.RawMessage(`{ "x": 1.0, "url": "https://a/" }`))
	if !d.Allowed || d.Source != SourceRemembered {
		t.Errorf("remembered allow not used before rules: %+v", d)
	}
	mem.AlwaysDeny(k)
	d, _ = c.Check(context.Background(), "http_fetch", json.RawMessage(`{"url":"https://a/","x":1}`))
	if d.Allowed || d.Source != SourceRemembered || !strings.Contains(d.Reason, "denied always") {
		t.Errorf("always-deny must beat always-allow: %+v", d)
	}
	// Another tool with the same arguments is another call.
	d, _ = c.Check(context.Background(), "http_fetch2", json.RawMessage(`{"url":"https://a/","x":1}`))
	if d.Source != "rule 1" {
		t.Errorf("key must include the tool: %+v", d)
	}
	if _, err := c.Check(context.Background(), "t", json.RawMessage(`{`)); err == nil {
		t.Error("invalid JSON args accepted")
	}
}

func TestCIRefusalNamesRule(t *testing.T) {
	c := mustNew(t, Config{}, Options{})
	d, _ := c.Check(context.Background(), "http_fetch", json.RawMessage(`{"url":"https://a/"}`))
	want := `add to agentlab.toml: [[permissions.rules]] tool = "http_fetch" decision = "allow"`
	if d.Allowed || d.Source != SourceCIRefused || !strings.Contains(d.Reason, want) || !strings.Contains(d.Reason, "no permission rule matches it") {
		t.Errorf("decision = %+v\nwant reason containing %s", d, want)
	}
	c = mustNew(t, Config{Rules: []Rule{{Tool: "file_*", Decision: Allow}, {Tool: "http_*", Decision: Ask}}}, Options{ConfigFile: "/p/agentlab.toml"})
	d, _ = c.Check(context.Background(), "http_fetch", nil)
	if !strings.Contains(d.Reason, "rule 2 says ask") || !strings.Contains(d.Reason, "add to /p/agentlab.toml (placed before rule 2)") {
		t.Errorf("reason = %s", d.Reason)
	}
	c = mustNew(t, Config{}, Options{AssumeYes: true})
	d, _ = c.Check(context.Background(), "http_fetch", nil)
	if !d.Allowed || d.Source != SourceYesFlag {
		t.Errorf("--yes: %+v", d)
	}
	// --yes never overrides a deny.
	c = mustNew(t, Config{Rules: []Rule{{Tool: "*", Decision: Deny}}}, Options{AssumeYes: true})
	if d, _ = c.Check(context.Background(), "x", nil); d.Allowed {
		t.Errorf("--yes overrode a deny rule: %+v", d)
	}
}

func TestPromptAnswers(t *testing.T) {
	p := &scripted{answers: []Answer{AnswerYes, AnswerNo, AnswerAlways, AnswerDenyAlways}}
	c := mustNew(t, Config{}, Options{Prompter: p})
	ctx := context.Background()
	check := func(args string) Decision {
		d, err := c.Check(ctx, "t", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := check(`{"n":1}`); !d.Allowed || d.Source != SourcePrompt {
		t.Errorf("y: %+v", d)
	}
	if d := check(`{"n":1}`); d.Allowed || d.Source != SourcePrompt {
		t.Errorf("n: %+v", d)
	}
	if d := check(`{"n":2}`); !d.Allowed || !strings.Contains(d.Reason, "allowed always") {
		t.Errorf("a: %+v", d)
	}
	if d := check(`{"n":3}`); d.Allowed || !strings.Contains(d.Reason, "denied always") {
		t.Errorf("d: %+v", d)
	}
	// The remembered answers are used without asking again.
	if d := check(`{"n":2}`); !d.Allowed || d.Source != SourceRemembered {
		t.Errorf("remembered a: %+v", d)
	}
	if d := check(`{"n":3}`); d.Allowed || d.Source != SourceRemembered {
		t.Errorf("remembered d: %+v", d)
	}
	if len(p.asked) != 4 {
		t.Errorf("asked %d times, want 4", len(p.asked))
	}
	p.err = errors.New("terminal gone")
	d, err := c.Check(ctx, "t", json.RawMessage(`{"n":9}`))
	if err == nil || d.Allowed {
		t.Errorf("prompt failure must refuse: %+v %v", d, err)
	}
}

func TestModes(t *testing.T) {
	gate := func(verdict string, err error, delay time.Duration) Gate {
		return func(ctx context.Context, tool string, args json.RawMessage) (string, error) {
			select {
			case <-time.After(delay):
				return verdict, err
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
	}
	tests := []struct {
		name    string
		mode    Mode
		gate    Gate
		answer  []Answer
		allowed bool
		source  string
		reason  string
	}{
		{"always", ModeAlways, nil, nil, true, SourceMode, "approval mode of t is always"},
		{"gate allows", ModeGated, gate("ALLOW ", nil, 0), nil, true, SourceMode, "the gate allowed"},
		{"gate denies", ModeGated, gate("deny", nil, 0), nil, false, SourceMode, "the gate denied"},
		{"gate unsure goes to a person", ModeGated, gate("unsure", nil, 0), []Answer{AnswerYes}, true, SourcePrompt, ""},
		{"gate error goes to a person", ModeGated, gate("", errors.New("model down"), 0), []Answer{AnswerNo}, false, SourcePrompt, ""},
		{"gate timeout goes to a person", ModeGated, gate("allow", nil, time.Second), []Answer{AnswerYes}, true, SourcePrompt, ""},
		{"ask", ModeAsk, nil, []Answer{AnswerNo}, false, SourcePrompt, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &scripted{answers: tt.answer}
			c := mustNew(t, Config{Modes: map[string]Mode{"t": tt.mode}}, Options{Gate: tt.gate, GateTimeout: 50 * time.Millisecond, Prompter: p})
			d, err := c.Check(context.Background(), "t", json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != tt.allowed || d.Source != tt.source || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("%+v", d)
			}
			if len(p.asked) != len(tt.answer) {
				t.Fatalf("asked %d times, want %d", len(p.asked), len(tt.answer))
			}
			if len(p.asked) == 1 {
				why := p.asked[0].Why
				if tt.mode == ModeGated && !strings.Contains(why, "gate") {
					t.Errorf("the person is not told about the gate: %q", why)
				}
				if strings.Contains(tt.name, "timeout") && !strings.Contains(why, "timed out after 50ms") {
					t.Errorf("why = %q", why)
				}
			}
		})
	}
	// A deny rule is not overridden by mode always.
	c := mustNew(t, Config{Rules: []Rule{{Tool: "t", Decision: Deny}}, Modes: map[string]Mode{"t": ModeAlways}}, Options{})
	if d, _ := c.Check(context.Background(), "t", nil); d.Allowed {
		t.Errorf("mode always overrode a deny rule: %+v", d)
	}
	if _, err := New(Config{Modes: map[string]Mode{"t": ModeGated}}, Options{}); err == nil {
		t.Error("gated without a gate accepted")
	}
}

func TestBadRules(t *testing.T) {
	tests := []struct {
		rule Rule
		want string
	}{
		{Rule{Tool: "x", Decision: "allw"}, `decision "allw" is not allow, deny or ask`},
		{Rule{Decision: Allow}, "tool is empty"},
		{Rule{Tool: "x", Decision: Allow, Arg: &ArgMatcher{Path: "u"}}, "exactly one of glob or regexp"},
		{Rule{Tool: "x", Decision: Allow, Arg: &ArgMatcher{Path: "u", Glob: "a", Regexp: "b"}}, "exactly one"},
		{Rule{Tool: "x", Decision: Allow, Arg: &ArgMatcher{Path: "", Glob: "a"}}, "arg.path is empty"},
		{Rule{Tool: "x", Decision: Allow, Arg: &ArgMatcher{Path: "a[x]", Glob: "a"}}, "is not a number"},
		{Rule{Tool: "x", Decision: Allow, Arg: &ArgMatcher{Path: "a", Regexp: "("}}, "does not compile"},
	}
	for _, tt := range tests {
		_, err := New(Config{Rules: []Rule{tt.rule}}, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "permissions rule 1: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.rule, err, tt.want)
		}
	}
}

func TestArgPaths(t *testing.T) {
	var args any
	_ = json.Unmarshal([]byte(`{"a":{"b":[{"c":"x"},{"c":"hit"}]},"n":42}`), &args)
	tests := []struct {
		path, glob string
		want       bool
	}{
		{"a.b[1].c", "hit", true},
		{"$.a.b[1].c", "h*", true},
		{"a.b[0].c", "hit", false},
		{"a.b[5].c", "*", false},
		{"a.b", "*", true}, // a list: matched on its JSON text
		{"a.b", `*"hit"*`, true},
		{"n", "4?", true},
		{"missing", "*", false},
	}
	for _, tt := range tests {
		r := Rule{Tool: "*", Decision: Allow, Arg: &ArgMatcher{Path: tt.path, Glob: tt.glob}}
		if err := r.compile(); err != nil {
			t.Fatal(err)
		}
		if got := r.matches("t", args); got != tt.want {
			t.Errorf("%s ~ %s = %v", tt.path, tt.glob, got)
		}
	}
}

func TestConcurrentChecks(t *testing.T) {
	p := &scripted{answers: make([]Answer, 50)}
	for i := range p.answers {
		p.answers[i] = AnswerAlways
	}
	c := mustNew(t, Config{}, Options{Prompter: p})
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := c.Check(context.Background(), "t", json.RawMessage(`{"i":`+string(rune('0'+i%10))+`}`)); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
}

// TestSharedConfig: checkers built concurrently from one Config (one per
// agent node) do not race on its rules.
func TestSharedConfig(t *testing.T) {
	cfg := Config{Rules: []Rule{{Tool: "*", Arg: &ArgMatcher{Path: "url", Glob: "https://*"}, Decision: Allow}}}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := New(cfg, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			if d, _ := c.Check(context.Background(), "http_fetch", json.RawMessage(`{"url":"https://a"}`)); !d.Allowed {
				t.Errorf("%+v", d)
			}
		}()
	}
	wg.Wait()
}

// An "always" or "deny always" answer is saved to MemoryFile at once, so a
// checker of a later run that loads the file decides the same exact calls
// without asking.
func TestMemoryFilePersists(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "permissions.json")
	scope := Scope{Project: "/p", KeyFile: filepath.Join(dir, "key")}
	mem, _, err := LoadMemory(path, scope)
	if err != nil {
		t.Fatal(err)
	}
	p := &scripted{answers: []Answer{AnswerAlways, AnswerDenyAlways, AnswerYes}}
	c := mustNew(t, Config{}, Options{Prompter: p, MemoryFile: path, Memory: mem})
	ctx := context.Background()
	for _, args := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		d, err := c.Check(ctx, "t", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		if args != `{"n":3}` && !strings.Contains(d.Reason, "remembered in permissions.json") {
			t.Errorf("%s: reason %q does not say where it is remembered", args, d.Reason)
		}
	}
	m, _, err := LoadMemory(path, scope)
	if err != nil {
		t.Fatal(err)
	}
	later := mustNew(t, Config{}, Options{Memory: m}) // no prompter: anything asked is refused
	want := map[string]bool{`{"n":1}`: true, `{"n":2}`: false}
	for args, allowed := range want {
		d, _ := later.Check(ctx, "t", json.RawMessage(args))
		if d.Allowed != allowed || d.Source != SourceRemembered {
			t.Errorf("later run, %s: %+v, want remembered allowed=%v", args, d, allowed)
		}
	}
	// "yes" (once) is not remembered.
	if d, _ := later.Check(ctx, "t", json.RawMessage(`{"n":3}`)); d.Source != SourceCIRefused {
		t.Errorf("a once-only answer was remembered: %+v", d)
	}
	// A save that fails keeps the answer for this process and says so.
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p2 := &scripted{answers: []Answer{AnswerAlways}}
	c2 := mustNew(t, Config{}, Options{Prompter: p2, MemoryFile: filepath.Join(blocked, "permissions.json")})
	d, err := c2.Check(ctx, "t", json.RawMessage(`{}`))
	if err != nil || !d.Allowed || !strings.Contains(d.Reason, "for this run only") {
		t.Errorf("failed save: %+v %v", d, err)
	}
}

// TestOperatorOrderAgainstHostileFlow plays a flow author who writes node
// rules to reopen what the operator closed, and a hand-planted remembered
// allow: the operator's deny holds, a flow allow never widens, a flow
// deny or ask always narrows.
func TestOperatorOrderAgainstHostileFlow(t *testing.T) {
	operator := []Rule{
		{Tool: "file_read", Arg: &ArgMatcher{Path: "path", Glob: "secrets/*"}, Decision: Deny},
		{Tool: "http_fetch", Decision: Allow},
		{Tool: "mcp__*", Decision: Ask},
	}
	hostile := []Rule{{Tool: "*", Decision: Allow}}
	scoped := func(tool string) bool { return strings.HasPrefix(tool, "db_query__") || tool == "run_code" }
	tests := []struct {
		name    string
		flow    []Rule
		tool    string
		args    string
		allowed bool
		source  string
	}{
		{"flow allow-all does not lift an operator deny", hostile, "file_read", `{"path":"secrets/key"}`, false, "rule 1"},
		{"flow allow-all does not lift an operator ask", hostile, "mcp__x__write", `{}`, false, SourceCIRefused},
		{"flow allow-all does not open a tool the operator never named", hostile, "file_read", `{"path":"notes.txt"}`, false, SourceCIRefused},
		{"flow allow holds for the flow's own sources", hostile, "db_query__sales", `{"sql":"select 1"}`, true, "flow rule 1"},
		{"flow deny narrows an operator allow", []Rule{{Tool: "http_fetch", Decision: Deny}}, "http_fetch", `{"url":"https://a/"}`, false, "flow rule 1"},
		{"flow ask narrows an operator allow", []Rule{{Tool: "http_*", Decision: Ask}}, "http_fetch", `{"url":"https://a/"}`, false, SourceCIRefused},
		{"operator allow without flow rules", nil, "http_fetch", `{"url":"https://a/"}`, true, "rule 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, Config{Rules: operator}, Options{FlowRules: tt.flow, FlowScoped: scoped})
			d, err := c.Check(context.Background(), tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != tt.allowed || d.Source != tt.source {
				t.Errorf("%+v, want allowed=%v source=%s", d, tt.allowed, tt.source)
			}
		})
	}
	// A remembered allow (planted by hand or answered once) never beats
	// an operator deny; a remembered deny beats an operator allow.
	mem := NewMemory()
	k, _ := KeyOf("file_read", json.RawMessage(`{"path":"secrets/key"}`))
	mem.AlwaysAllow(k)
	k2, _ := KeyOf("http_fetch", json.RawMessage(`{"url":"https://a/"}`))
	mem.AlwaysDeny(k2)
	c := mustNew(t, Config{Rules: operator}, Options{Memory: mem})
	if d, _ := c.Check(context.Background(), "file_read", json.RawMessage(`{"path":"secrets/key"}`)); d.Allowed || d.Source != "rule 1" {
		t.Errorf("remembered allow beat the operator's deny: %+v", d)
	}
	if d, _ := c.Check(context.Background(), "http_fetch", json.RawMessage(`{"url":"https://a/"}`)); d.Allowed || d.Source != SourceRemembered {
		t.Errorf("remembered deny lost to the operator's allow: %+v", d)
	}
}

// TestNonStringArgumentsMatchedAsJSON is a model that wraps a denied
// word in a list or an object to slip past a regexp written for a string.
func TestNonStringArgumentsMatchedAsJSON(t *testing.T) {
	c := mustNew(t, Config{Rules: []Rule{
		{Tool: "db_*", Arg: &ArgMatcher{Path: "q", Regexp: `(?i)drop`}, Decision: Deny},
		{Tool: "*", Decision: Allow},
	}}, Options{})
	for _, args := range []string{`{"q":"DROP TABLE users"}`, `{"q":["DROP TABLE users"]}`, `{"q":{"x":"drop table users"}}`} {
		if d, _ := c.Check(context.Background(), "db_x", json.RawMessage(args)); d.Allowed {
			t.Errorf("%s passed the deny: %+v", args, d)
		}
	}
}

// TestProjectCannotWidenUserDeny is a project agentlab.toml (or a planted
// one the user trusted) that allows everything, against the user's own
// deny: the stricter of the two files decides, whichever it is.
func TestProjectCannotWidenUserDeny(t *testing.T) {
	project := []Rule{{Tool: "*", Decision: Allow}}
	user := []Rule{{Tool: "http_fetch", Arg: &ArgMatcher{Path: "url", Glob: "http://169.254.169.254/*"}, Decision: Deny}, {Tool: "mcp__*", Decision: Ask}}
	c := mustNew(t, Config{Rules: project}, Options{UserRules: user})
	tests := []struct {
		tool, args string
		allowed    bool
		source     string
	}{
		{"http_fetch", `{"url":"http://169.254.169.254/latest"}`, false, "user rule 1"},
		{"mcp__x__save", `{}`, false, SourceCIRefused},
		{"file_read", `{"path":"a"}`, true, "rule 1"},
	}
	for _, tt := range tests {
		d, err := c.Check(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil || d.Allowed != tt.allowed || d.Source != tt.source {
			t.Errorf("%s %s = %+v %v, want allowed=%v source=%s", tt.tool, tt.args, d, err, tt.allowed, tt.source)
		}
	}
	// And the other way round: the project's deny holds over the user's allow.
	c2 := mustNew(t, Config{Rules: []Rule{{Tool: "file_read", Decision: Deny}}}, Options{UserRules: []Rule{{Tool: "*", Decision: Allow}}})
	if d, _ := c2.Check(context.Background(), "file_read", json.RawMessage(`{}`)); d.Allowed || d.Source != "rule 1" {
		t.Errorf("project deny under a user allow: %+v", d)
	}
}
