package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
)

// Config is the [permissions] table of agentlab.toml:
//
//	[permissions]
//	gate_timeout_s = 30
//
//	[permissions.modes]
//	http_fetch = "gated"
//
//	[[permissions.rules]]          # checked in order; first match wins
//	tool = "http_fetch"
//	arg = { path = "url", glob = "https://internal.example.com/*" }
//	decision = "deny"
//
//	[[permissions.rules]]
//	tool = "http_fetch"
//	decision = "allow"
type Config struct {
	Rules        []Rule
	Modes        map[string]Mode
	GateTimeoutS int
}

// Diagnostic codes of the [permissions] table (docs/security.md).
const (
	CodeConfig = "E-PERM-CONFIG" // the table or a key in it is malformed
	CodeRule   = "E-PERM-RULE"   // a rule is invalid
	CodeMode   = "E-PERM-MODE"   // an approval mode is invalid
)

// ParseConfig reads the [permissions] table from agentlab.toml bytes. A
// file without the table gives an empty Config (every call asks). Each
// problem is a diagnostic with the line of the offending table.
func ParseConfig(file string, data []byte) (*Config, diag.List) {
	var ds diag.List
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			ds.Errorf(file, diag.Pos{Line: row, Col: col}, CodeConfig, "fix the TOML syntax", "%s", de.Error())
		} else {
			ds.Errorf(file, diag.Pos{Line: 1, Col: 1}, CodeConfig, "fix the TOML syntax", "%v", err)
		}
		return nil, ds
	}
	cfg := &Config{Modes: map[string]Mode{}}
	raw, ok := doc["permissions"]
	if !ok {
		return cfg, nil
	}
	lines := strings.Split(string(data), "\n")
	tablePos := findLine(lines, "[permissions]", 1)
	table, ok := raw.(map[string]any)
	if !ok {
		ds.Errorf(file, tablePos, CodeConfig, "write it as a [permissions] table", "permissions is not a table")
		return nil, ds
	}
	for _, k := range sortedMapKeys(table) {
		v := table[k]
		switch k {
		case "rules":
			list, ok := v.([]any)
			if !ok {
				ds.Errorf(file, tablePos, CodeConfig, "write each rule as a [[permissions.rules]] table", "permissions.rules is not a list of tables")
				continue
			}
			for i, item := range list {
				pos := findLine(lines, "[[permissions.rules]]", i+1)
				if r, key, msg := parseRule(item); msg != "" {
					ds.Errorf(file, keyAfter(lines, pos, key), CodeRule, `a rule is: tool = "<glob>", decision = "allow"|"deny"|"ask", optional arg = {path = "<arg>", glob = "…"} or {path, regexp}`, "permissions rule %d: %s", i+1, msg)
				} else {
					cfg.Rules = append(cfg.Rules, r)
				}
			}
		case "modes":
			m, ok := v.(map[string]any)
			if !ok {
				ds.Errorf(file, tablePos, CodeConfig, "write it as a [permissions.modes] table of tool = mode", "permissions.modes is not a table")
				continue
			}
			pos := findLine(lines, "[permissions.modes]", 1)
			for _, tool := range sortedMapKeys(m) {
				s, _ := m[tool].(string)
				switch Mode(s) {
				case ModeAsk, ModeGated, ModeAlways:
					cfg.Modes[tool] = Mode(s)
				default:
					ds.Errorf(file, keyAfter(lines, pos, tool), CodeMode, "use ask, gated or always", "approval mode of %s is %v, not ask, gated or always", tool, m[tool])
				}
			}
		case "gate_timeout_s":
			n, ok := v.(int64)
			if !ok || n <= 0 || n > 3600 {
				ds.Errorf(file, keyAfter(lines, tablePos, k), CodeConfig, "give a whole number of seconds from 1 to 3600", "permissions.gate_timeout_s is %v", v)
				continue
			}
			cfg.GateTimeoutS = int(n)
		default:
			ds.Errorf(file, keyAfter(lines, tablePos, k), CodeConfig, "the keys of [permissions] are rules, modes and gate_timeout_s", "unknown key permissions.%s", k)
		}
	}
	if ds.HasErrors() {
		return nil, ds
	}
	return cfg, ds
}

// parseRule reads one rule table; msg says what is wrong and key names
// the offending key ("" for the rule as a whole), for the position.
func parseRule(item any) (r Rule, key, msg string) {
	r, msg = readRule(item)
	if msg == "" {
		return r, "", ""
	}
	// Every message starts with the key it is about ("decision …",
	// "arg.path …", "unknown key \"x\" …" is about x).
	if f := strings.FieldsFunc(msg, func(c rune) bool { return c == ' ' || c == '.' }); len(f) > 0 {
		key = f[0]
	}
	if f := strings.Fields(msg); strings.HasPrefix(msg, "unknown key ") && len(f) > 2 {
		key, _, _ = strings.Cut(strings.Trim(f[2], `"`), ".")
	}
	if key == "is" {
		key = ""
	}
	return r, key, msg
}

// readRule reads one rule table; msg says what is wrong.
func readRule(item any) (Rule, string) {
	t, ok := item.(map[string]any)
	if !ok {
		return Rule{}, "is not a table"
	}
	var r Rule
	for _, k := range sortedMapKeys(t) {
		v := t[k]
		switch k {
		case "tool":
			s, ok := v.(string)
			if !ok {
				return r, "tool is not a string"
			}
			r.Tool = s
		case "decision":
			s, ok := v.(string)
			if !ok {
				return r, "decision is not a string"
			}
			r.Decision = Verdict(s)
		case "arg":
			a, ok := v.(map[string]any)
			if !ok {
				return r, "arg is not a table {path, glob|regexp}"
			}
			m := &ArgMatcher{}
			for _, ak := range sortedMapKeys(a) {
				s, ok := a[ak].(string)
				if !ok {
					return r, fmt.Sprintf("arg.%s is not a string", ak)
				}
				switch ak {
				case "path":
					m.Path = s
				case "glob":
					m.Glob = s
				case "regexp":
					m.Regexp = s
				default:
					return r, fmt.Sprintf("unknown key arg.%s (known: path, glob, regexp)", ak)
				}
			}
			r.Arg = m
		default:
			return r, fmt.Sprintf("unknown key %q (known: tool, decision, arg)", k)
		}
	}
	if err := r.compile(); err != nil {
		return r, err.Error()
	}
	return r, ""
}

// keyAfter returns the position of key among the key lines that follow
// the table header at header (up to the next header), or header itself
// when the key is not written there (an inline table, or key "").
func keyAfter(lines []string, header diag.Pos, key string) diag.Pos {
	if key == "" || header.Line < 1 {
		return header
	}
	for i := header.Line; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			break
		}
		name, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		name = strings.TrimSpace(name)
		if name == key || strings.Trim(name, `"'`) == key || strings.HasPrefix(name, key+".") {
			return diag.Pos{Line: i + 1, Col: len(l) - len(strings.TrimLeft(l, " \t")) + 1}
		}
	}
	return header
}

// findLine returns the position of the n-th line that starts with header,
// or line 1 when there is none (rules written inline).
func findLine(lines []string, header string, n int) diag.Pos {
	seen := 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(strings.ReplaceAll(t, " ", ""), header) {
			seen++
			if seen == n {
				return diag.Pos{Line: i + 1, Col: strings.Index(l, "[") + 1}
			}
		}
	}
	return diag.Pos{Line: 1, Col: 1}
}

func sortedMapKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LoadConfigFile reads the [permissions] table of the agentlab.toml at
// path (found by the caller, nearest up the tree). No file means an empty
// configuration: every call asks.
func LoadConfigFile(path string) (*Config, diag.List) {
	data, err := fsutil.ReadConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Modes: map[string]Mode{}}, nil
	}
	if err != nil {
		var ds diag.List
		ds.Errorf(path, diag.Pos{Line: 1, Col: 1}, CodeConfig, "check that the file is readable", "cannot read the configuration: %v", err)
		return nil, ds
	}
	return ParseConfig(path, data)
}
