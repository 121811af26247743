package permission

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Verdict is what a rule says.
type Verdict string

const (
	Allow Verdict = "allow"
	Deny  Verdict = "deny"
	Ask   Verdict = "ask"
)

// Rule matches calls by tool name (a glob: "http_*", "*"; for deny and
// ask in any case) and, optionally, one argument. Rules are checked in
// order; the first match decides.
type Rule struct {
	Tool     string      `toml:"tool" json:"tool"`
	Arg      *ArgMatcher `toml:"arg,omitempty" json:"arg,omitempty"`
	Decision Verdict     `toml:"decision" json:"decision"`

	tool *regexp.Regexp
}

// Globs (tool names and ArgMatcher.Glob) are anchored: "*" matches any
// run of characters, "/" included (so "https://api.example.com/*" covers
// every path), "?" matches one character; nothing else is special.

// ArgMatcher tests the argument at Path (dotted, "url", "params.week",
// "items[0]"; a leading "$." is accepted) against a glob or a regular
// expression (exactly one). A string is matched as it is, a number as
// written, anything else (a list, an object, true, null) on its compact
// JSON text; a missing argument does not match.
type ArgMatcher struct {
	Path   string `toml:"path" json:"path"`
	Glob   string `toml:"glob,omitempty" json:"glob,omitempty"`
	Regexp string `toml:"regexp,omitempty" json:"regexp,omitempty"`

	re    *regexp.Regexp
	steps []string
}

// compile checks the rule and prepares its matcher.
func (r *Rule) compile() error {
	switch r.Decision {
	case Allow, Deny, Ask:
	default:
		return fmt.Errorf("decision %q is not allow, deny or ask", r.Decision)
	}
	if r.Tool == "" {
		return fmt.Errorf("tool is empty; use \"*\" to match every tool")
	}
	r.tool = globRegexp(r.Tool)
	if r.Decision != Allow {
		// A deny or ask holds for the tool's name in any case: an MCP
		// server that renames delete_note to Delete_note between runs
		// does not step out of a rule written for it. An allow stays
		// exact, so that case can only narrow.
		r.tool = regexp.MustCompile(`(?i)` + r.tool.String())
	}
	if m := r.Arg; m != nil {
		if (m.Glob == "") == (m.Regexp == "") {
			return fmt.Errorf("arg needs exactly one of glob or regexp")
		}
		p := strings.TrimPrefix(strings.TrimPrefix(m.Path, "$"), ".")
		if p == "" {
			return fmt.Errorf("arg.path is empty; name an argument, e.g. \"url\"")
		}
		steps, err := splitPath(p)
		if err != nil {
			return err
		}
		m.steps = steps
		if m.Regexp != "" {
			re, err := regexp.Compile(m.Regexp)
			if err != nil {
				return fmt.Errorf("arg.regexp does not compile: %v", err)
			}
			m.re = re
		} else {
			m.re = globRegexp(m.Glob)
		}
	}
	return nil
}

// splitPath splits "a.b[2].c" into a, b, 2, c.
func splitPath(p string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(p, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" && rest == "" {
			return nil, fmt.Errorf("arg.path %q has an empty step", p)
		}
		if name != "" {
			out = append(out, name)
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			if _, err := strconv.Atoi(idx); !ok || err != nil {
				return nil, fmt.Errorf("arg.path %q: index %q is not a number", p, idx)
			}
			out = append(out, idx)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return out, nil
}

// matches reports whether the rule applies to tool called with args
// (decoded JSON, may be nil).
func (r *Rule) matches(tool string, args any) bool {
	if !r.tool.MatchString(tool) {
		return false
	}
	if r.Arg == nil {
		return true
	}
	v, ok := lookup(args, r.Arg.steps)
	if !ok {
		return false
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		// A list, an object, a bool or null is matched on its JSON text,
		// so a deny on (?i)drop also catches {"q": ["DROP TABLE users"]}.
		b, err := json.Marshal(x)
		if err != nil {
			return false
		}
		s = string(b)
	}
	return r.Arg.re.MatchString(s)
}

// globRegexp compiles a glob to an anchored regular expression.
func globRegexp(glob string) *regexp.Regexp {
	q := regexp.QuoteMeta(glob)
	q = strings.ReplaceAll(q, `\*`, ".*")
	q = strings.ReplaceAll(q, `\?`, ".")
	return regexp.MustCompile(`^(?s:` + q + `)$`)
}

func lookup(v any, steps []string) (any, bool) {
	for _, s := range steps {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[s]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// flowString renders a flow rule as the flow writes it.
func (r *Rule) flowString() string {
	return fmt.Sprintf("{tool: %q, action: %s}", r.Tool, r.Decision)
}

// String renders the rule as agentlab.toml text.
func (r *Rule) String() string {
	s := fmt.Sprintf("[[permissions.rules]] tool = %q decision = %q", r.Tool, r.Decision)
	if m := r.Arg; m != nil {
		if m.Glob != "" {
			s += fmt.Sprintf(" arg = {path = %q, glob = %q}", m.Path, m.Glob)
		} else {
			s += fmt.Sprintf(" arg = {path = %q, regexp = %q}", m.Path, m.Regexp)
		}
	}
	return s
}

// FlowScoped reports whether a tool (or a tool pattern) reaches only what
// the flow itself declares — the guarded, read-only query tools of its
// own sources (db_query__…) and run_code, whose every sub-call is checked
// on its own — so that a flow's allow rule may hold for it where no
// operator rule speaks. Every other tool (files, the network, custom and
// MCP tools) reaches the machine, and only the operator can open it.
func FlowScoped(tool string) bool {
	return strings.HasPrefix(tool, "db_query__") || tool == "run_code"
}

// Allows reports whether the operator's rules allow every call of tool
// (a name or a pattern taken as written): the first rule without an
// argument matcher whose pattern covers it says allow. A nil Config
// allows nothing.
func (c *Config) Allows(tool string) bool {
	return c.verdict(tool) == Allow
}

// verdict is the decision of the first rule without an argument matcher
// that covers tool, "" when none does.
func (c *Config) verdict(tool string) Verdict {
	if c == nil {
		return ""
	}
	for i := range c.Rules {
		r := c.Rules[i]
		if r.Arg != nil {
			continue
		}
		if globRegexp(r.Tool).MatchString(tool) {
			return r.Decision
		}
	}
	return ""
}

// OperatorAllows reports whether the operator allows every call of tool
// when the project's and the user's rules are both in force: one of them
// allows it and neither asks or denies (the stricter decides, as in
// Checker.Check).
func OperatorAllows(project, user *Config, tool string) bool {
	p, u := project.verdict(tool), user.verdict(tool)
	if p == Deny || u == Deny || p == Ask || u == Ask {
		return false
	}
	return p == Allow || u == Allow
}
