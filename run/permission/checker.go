package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Mode is a tool's approval mode: how a call that needs approval is
// settled.
type Mode string

const (
	ModeAsk    Mode = "ask"    // a person decides (the default)
	ModeGated  Mode = "gated"  // a gate judges; unsure, error or timeout go to a person
	ModeAlways Mode = "always" // approved without asking
)

// Gate judges a call's arguments, normally with a model. It answers
// "allow", "deny", or anything else for unsure.
type Gate func(ctx context.Context, tool string, args json.RawMessage) (verdict string, err error)

// Decision is the outcome of a check, recorded by the engine as an event.
type Decision struct {
	Allowed bool   `json:"allowed"`
	Source  string `json:"source"` // remembered | rule N | mode | prompt | ci-refused | yes-flag
	Reason  string `json:"reason"`
}

// Sources of a decision.
const (
	SourceRemembered = "remembered"
	SourceMode       = "mode"
	SourcePrompt     = "prompt"
	SourceCIRefused  = "ci-refused"
	SourceYesFlag    = "yes-flag"
	// SourceFlowRule prefixes the number of a flow (node) rule that
	// decided: "flow rule 2". A rule of the project's configuration is
	// "rule N", one of the user's configuration "user rule N".
	SourceFlowRule = "flow rule"
	SourceUserRule = "user rule"
	// SourceEnclosingRule prefixes a rule of an agentlab.toml in a
	// directory above the project's: "enclosing rule 2 of /repo/agentlab.toml".
	SourceEnclosingRule = "enclosing rule"
)

// RuleFile is the [permissions] rules of one configuration file.
type RuleFile struct {
	File  string
	Rules []Rule
}

// Options are the run-time parts of a checker.
type Options struct {
	Memory      *Memory       // remembered decisions; nil: a fresh one
	Gate        Gate          // needed by gated tools
	GateTimeout time.Duration // 30 s by default
	Prompter    Prompter      // nil when there is no terminal (or in CI)
	AssumeYes   bool          // --yes: approve what would be asked
	ConfigFile  string        // where rules live, named in refusals ("agentlab.toml")
	// MemoryFile, when set, is where Memory is saved each time an answer
	// at the prompt is remembered ("always", "deny always"), so that the
	// decision holds in later runs too (see LoadMemory).
	MemoryFile string
	// UserRules are the [permissions] rules of the user's own config.toml:
	// operator rules like Config.Rules, and whichever of the two files is
	// stricter for a call decides (see Check).
	UserRules []Rule
	// EnclosingRules are the [permissions] rules of the agentlab.toml
	// files in the directories above the project's, nearest first: operator
	// rules like UserRules, so that a project file nested in another
	// (a flow's own folder inside a repository) cannot widen what the
	// enclosing one closes.
	EnclosingRules []RuleFile
	// FlowRules are the rules the flow brings (an agent node's
	// `permissions`). They are checked after every operator rule and may
	// only narrow: see Check.
	FlowRules []Rule
	// FlowScoped reports whether a tool reaches only what the flow itself
	// declares (the query tools of its own sources, run_code whose every
	// sub-call is checked again), so that a flow rule may allow it where
	// no operator rule speaks. nil: no tool is.
	FlowScoped func(tool string) bool
	// Normalize rewrites decoded arguments into what the tool will really
	// act on (a path as the file tools resolve it, a URL as the fetcher
	// requests it) before rules match them. nil: rules see the arguments
	// as given.
	Normalize func(tool string, args any) any
	// Aliases returns other spellings of the same call (a URL with its
	// host name replaced by each address it resolves to), which deny and
	// ask rules also match — never allow rules, so an alias can only
	// narrow. nil: none.
	Aliases func(tool string, args any) []any
}

// Checker decides tool calls. It is safe for concurrent use.
type Checker struct {
	rules []Rule
	modes map[string]Mode
	opt   Options
}

// New checks cfg and returns a checker.
func New(cfg Config, opt Options) (*Checker, error) {
	c := &Checker{modes: map[string]Mode{}, opt: opt}
	c.opt.FlowRules = append([]Rule(nil), opt.FlowRules...)
	for i, r := range cfg.Rules {
		if r.Arg != nil {
			// compile fills in the matcher; work on a copy so that a Config
			// shared by several checkers is never written concurrently.
			m := *r.Arg
			r.Arg = &m
		}
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("permissions rule %d: %w", i+1, err)
		}
		c.rules = append(c.rules, r)
	}
	c.opt.UserRules = append([]Rule(nil), opt.UserRules...)
	for i, r := range opt.UserRules {
		if r.Arg != nil {
			m := *r.Arg
			r.Arg = &m
		}
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("user permissions rule %d: %w", i+1, err)
		}
		c.opt.UserRules[i] = r
	}
	c.opt.EnclosingRules = nil
	for _, f := range opt.EnclosingRules {
		rules := append([]Rule(nil), f.Rules...)
		for i, r := range rules {
			if r.Arg != nil {
				m := *r.Arg
				r.Arg = &m
			}
			if err := r.compile(); err != nil {
				return nil, fmt.Errorf("%s permissions rule %d: %w", f.File, i+1, err)
			}
			rules[i] = r
		}
		c.opt.EnclosingRules = append(c.opt.EnclosingRules, RuleFile{File: f.File, Rules: rules})
	}
	for i, r := range opt.FlowRules {
		if r.Arg != nil {
			m := *r.Arg
			r.Arg = &m
		}
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("flow permissions rule %d: %w", i+1, err)
		}
		c.opt.FlowRules[i] = r
	}
	for tool, m := range cfg.Modes {
		switch m {
		case ModeAsk, ModeGated, ModeAlways:
		default:
			return nil, fmt.Errorf("permissions mode of %s: %q is not ask, gated or always", tool, m)
		}
		if m == ModeGated && opt.Gate == nil {
			return nil, fmt.Errorf("permissions mode of %s is gated but no gate is configured", tool)
		}
		c.modes[tool] = m
	}
	if c.opt.Memory == nil {
		c.opt.Memory = NewMemory()
	}
	if c.opt.GateTimeout <= 0 && cfg.GateTimeoutS > 0 {
		c.opt.GateTimeout = time.Duration(cfg.GateTimeoutS) * time.Second
	}
	if c.opt.GateTimeout <= 0 {
		c.opt.GateTimeout = 30 * time.Second
	}
	if c.opt.ConfigFile == "" {
		c.opt.ConfigFile = "agentlab.toml"
	}
	return c, nil
}

// Memory returns the remembered decisions (to save them after a run).
func (c *Checker) Memory() *Memory { return c.opt.Memory }

// Check decides one call. An error means the check itself could not be
// made (arguments that are not JSON, a prompt that failed); the call must
// then not run.
//
// The order is the operator's (see the package comment): an operator deny
// rule, then the remembered exact calls, then an operator allow or ask
// rule, and only then the flow's rules, which may narrow (deny, ask) but
// never widen: a flow allow holds only for a tool FlowScoped says reaches
// nothing but what the flow brought, and only where no operator rule
// speaks.
func (c *Checker) Check(ctx context.Context, tool string, args json.RawMessage) (Decision, error) {
	key, err := KeyOf(tool, args)
	if err != nil {
		return Decision{Reason: err.Error()}, err
	}
	var decoded any
	if len(args) > 0 {
		_ = json.Unmarshal(args, &decoded) // valid: KeyOf parsed it
	}
	if c.opt.Normalize != nil {
		decoded = c.opt.Normalize(tool, decoded)
	}
	var aliases []any
	if c.opt.Aliases != nil {
		aliases = c.opt.Aliases(tool, decoded)
	}
	op, opN, opSrc := c.operatorRule(tool, decoded, aliases)
	if op != nil && op.Decision == Deny {
		return Decision{false, opSrc, fmt.Sprintf("%s denies it (%s)", opSrc, op)}, nil
	}
	switch c.opt.Memory.Lookup(key) {
	case Deny:
		return Decision{false, SourceRemembered, fmt.Sprintf("this exact call of %s was denied always before", tool)}, nil
	case Allow:
		return Decision{true, SourceRemembered, fmt.Sprintf("this exact call of %s was allowed always before", tool)}, nil
	}
	fl, flN := firstMatch(c.opt.FlowRules, tool, decoded, aliases)
	flSrc := fmt.Sprintf("%s %d", SourceFlowRule, flN)
	if fl != nil && fl.Decision == Deny {
		return Decision{false, flSrc, fmt.Sprintf("%s denies it (%s)", flSrc, fl.flowString())}, nil
	}
	if op != nil && op.Decision == Allow {
		if fl != nil && fl.Decision == Ask {
			return c.ask(ctx, tool, args, key, flSrc+" says ask (narrower than "+opSrc+", which allows it)", askedBy{flowAsk: flN, opAllows: true})
		}
		return Decision{true, opSrc, fmt.Sprintf("%s allows it (%s)", opSrc, op)}, nil
	}
	why, by := "no permission rule matches it", askedBy{}
	if op != nil {
		why = opSrc + " says ask"
		by.rule, by.userRule = opN, userRuleNumber(opSrc)
		if strings.HasPrefix(opSrc, SourceEnclosingRule+" ") {
			by.enclosing = opSrc
		}
	}
	if fl != nil {
		switch {
		case fl.Decision == Ask:
			why = flSrc + " says ask"
			by.flowAsk = flN
		case op == nil && c.opt.FlowScoped != nil && c.opt.FlowScoped(tool):
			return Decision{true, flSrc, fmt.Sprintf("%s allows it (%s; %s reaches only what the flow itself declares)", flSrc, fl.flowString(), tool)}, nil
		default:
			cf := filepath.Base(c.opt.ConfigFile)
			why = fmt.Sprintf("%s allows it, but a flow may only narrow what %s allows and %s does not allow it", flSrc, cf, cf)
		}
	}
	return c.ask(ctx, tool, args, key, why, by)
}

// askedBy is which rules made a call ask, so that a refusal in CI can name
// a change that would allow it: an allow rule placed after the asking one,
// or in a file that cannot widen it, would not.
type askedBy struct {
	rule     int // the project rule that says ask (0: none)
	userRule int // the user rule that says ask (0: none)
	// enclosing is the enclosing file's rule that says ask
	// ("enclosing rule N of FILE"; "": none).
	enclosing string
	flowAsk   int  // the flow rule that says ask (0: none)
	opAllows  bool // an operator rule allows the call
}

// userRuleNumber reads N from "user rule N" (operatorRule's source).
func userRuleNumber(src string) int {
	var n int
	if _, err := fmt.Sscanf(src, SourceUserRule+" %d", &n); err != nil {
		return 0
	}
	return n
}

// operatorRule is the operator's rule for a call: the first matching rule
// of the project's configuration, the first of the user's and the first
// of each enclosing file's, whichever is stricter (deny over ask over
// allow), so that no file can widen what another closes. n is the rule's
// number in the project's rules (0 for another file's), for the CI
// sentence that says where to add a rule.
func (c *Checker) operatorRule(tool string, args any, aliases []any) (r *Rule, n int, src string) {
	rank := func(r *Rule) int {
		if r == nil {
			return 0
		}
		return map[Verdict]int{Allow: 1, Ask: 2, Deny: 3}[r.Decision]
	}
	p, pn := firstMatch(c.rules, tool, args, aliases)
	r, n, src = p, pn, fmt.Sprintf("rule %d", pn)
	if u, un := firstMatch(c.opt.UserRules, tool, args, aliases); rank(u) > rank(r) {
		r, n, src = u, 0, fmt.Sprintf("%s %d", SourceUserRule, un)
	}
	for _, f := range c.opt.EnclosingRules {
		if e, en := firstMatch(f.Rules, tool, args, aliases); rank(e) > rank(r) {
			r, n, src = e, 0, fmt.Sprintf("%s %d of %s", SourceEnclosingRule, en, f.File)
		}
	}
	return r, n, src
}

// firstMatch returns the first rule of rules that applies and its
// 1-based number, or nil, 0. A deny or ask rule also applies when it
// matches one of the aliases.
func firstMatch(rules []Rule, tool string, args any, aliases []any) (*Rule, int) {
	for i := range rules {
		r := &rules[i]
		if r.matches(tool, args) {
			return r, i + 1
		}
		if r.Decision != Allow {
			for _, a := range aliases {
				if r.matches(tool, a) {
					return r, i + 1
				}
			}
		}
	}
	return nil, 0
}

// ask settles a call that needs approval, by the tool's mode.
func (c *Checker) ask(ctx context.Context, tool string, args json.RawMessage, key CallKey, why string, by askedBy) (Decision, error) {
	switch c.modes[tool] {
	case ModeAlways:
		return Decision{true, SourceMode, fmt.Sprintf("%s; the approval mode of %s is always", why, tool)}, nil
	case ModeGated:
		verdict, err := c.runGate(ctx, tool, args)
		switch {
		case err != nil:
			why = fmt.Sprintf("%s; the gate could not decide (%v)", why, err)
		case verdict == "allow":
			return Decision{true, SourceMode, "the gate allowed the arguments (approval mode gated)"}, nil
		case verdict == "deny":
			return Decision{false, SourceMode, "the gate denied the arguments (approval mode gated)"}, nil
		default:
			why = fmt.Sprintf("%s; the gate was unsure (%q)", why, verdict)
		}
	}
	if c.opt.AssumeYes {
		return Decision{true, SourceYesFlag, why + "; approved by --yes"}, nil
	}
	if c.opt.Prompter == nil {
		return Decision{false, SourceCIRefused, c.ciMessage(tool, why, by)}, nil
	}
	a, err := c.opt.Prompter.Ask(ctx, Request{Tool: tool, Args: args, Why: why})
	if err != nil {
		return Decision{false, SourcePrompt, fmt.Sprintf("%s; the prompt failed: %v", why, err)}, err
	}
	switch a {
	case AnswerYes:
		return Decision{true, SourcePrompt, "allowed once at the prompt"}, nil
	case AnswerAlways:
		c.opt.Memory.AlwaysAllow(key)
		return Decision{true, SourcePrompt, "allowed always at the prompt" + c.persist()}, nil
	case AnswerDenyAlways:
		c.opt.Memory.AlwaysDeny(key)
		return Decision{false, SourcePrompt, "denied always at the prompt" + c.persist()}, nil
	}
	return Decision{false, SourcePrompt, "denied at the prompt"}, nil
}

// persist saves the memory to Options.MemoryFile after a remembered
// answer and says for how long the answer holds. A failed save does not
// undo the answer: it still holds for the rest of this process.
func (c *Checker) persist() string {
	if c.opt.MemoryFile == "" {
		return " (this exact call is remembered)"
	}
	if err := c.opt.Memory.Save(c.opt.MemoryFile); err != nil {
		return fmt.Sprintf(" (this exact call is remembered for this run only: %v)", err)
	}
	// The base name only: the sentence goes into the run's events, which
	// need not name the machine's directories.
	return " (this exact call is remembered in " + filepath.Base(c.opt.MemoryFile) + ")"
}

// runGate calls the gate within the timeout and normalises its verdict.
func (c *Checker) runGate(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	gctx, cancel := context.WithTimeout(ctx, c.opt.GateTimeout)
	defer cancel()
	type res struct {
		v   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := c.opt.Gate(gctx, tool, args)
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		if r.err == nil && gctx.Err() != nil {
			r.err = gctx.Err()
		}
		if errors.Is(r.err, context.DeadlineExceeded) {
			return "", fmt.Errorf("timed out after %s", c.opt.GateTimeout)
		}
		return strings.ToLower(strings.TrimSpace(r.v)), r.err
	case <-gctx.Done():
		return "", fmt.Errorf("timed out after %s", c.opt.GateTimeout)
	}
}

// ciMessage is the refusal when nobody can be asked: it names a change
// that would allow the call. Rules are checked in a fixed order (the
// operator's, then the flow's, which may only narrow), so the change
// depends on which rule asked: a flow's ask holds whatever the operator
// allows, and a project rule cannot widen a user rule's ask.
func (c *Checker) ciMessage(tool, why string, by askedBy) string {
	rule := Rule{Tool: tool, Decision: Allow}
	var fix string
	switch {
	case by.enclosing != "":
		n, file, _ := strings.Cut(strings.TrimPrefix(by.enclosing, SourceEnclosingRule+" "), " of ")
		fix = fmt.Sprintf("add to %s (placed before its rule %s, which says ask; %s cannot widen it): %s", file, n, filepath.Base(c.opt.ConfigFile), rule.String())
	case by.userRule > 0:
		fix = fmt.Sprintf("add to your config.toml (placed before its rule %d, which says ask; %s cannot widen it): %s", by.userRule, filepath.Base(c.opt.ConfigFile), rule.String())
	case by.rule > 0:
		fix = fmt.Sprintf("add to %s (placed before rule %d): %s", c.opt.ConfigFile, by.rule, rule.String())
	default:
		fix = fmt.Sprintf("add to %s: %s", c.opt.ConfigFile, rule.String())
	}
	if by.flowAsk > 0 {
		flow := fmt.Sprintf("remove rule %d of the agent node's permissions, or make it allow (a flow's ask holds whatever %s allows)", by.flowAsk, filepath.Base(c.opt.ConfigFile))
		if by.opAllows {
			fix = flow
		} else {
			fix = flow + ", and " + fix
		}
	}
	return fmt.Sprintf("%s needs approval (%s) and there is no terminal to ask (CI or stdin not a terminal); to allow it, %s — or run with --yes",
		tool, why, fix)
}
