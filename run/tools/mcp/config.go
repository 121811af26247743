package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/run/permission"
)

// ServerSpec is one [[mcp.servers]] entry of agentlab.toml:
//
//	[[mcp.servers]]
//	name = "notes"                       # tools are exposed as mcp__notes__<tool>
//	command = ["notes-mcp", "--stdio"]   # argv, no shell
//	env = { NOTES_DIR = "/srv/notes" }   # the server's whole environment, with PATH
//	pass_env = ["NOTES_TOKEN"]           # copied from agentlab's environment at start
//	approval = "ask"                     # ask (default) | gated | always
type ServerSpec struct {
	Name string
	// Command is the argv. Command[0] is an absolute path, a path relative
	// to Dir, or a name looked up in the server's own PATH (Env["PATH"],
	// else DefaultPath), never in agentlab's.
	Command []string
	// Env is declared on purpose; with PassEnv it is the server's whole
	// environment besides PATH.
	Env map[string]string
	// PassEnv names variables copied from agentlab's environment when the
	// server starts, so that a token need not be written into the file.
	PassEnv []string
	// Dir is the server's working directory: absolute, or relative to the
	// directory of the file that declared it. Default: that directory.
	Dir string
	// Approval settles the calls of this server's tools that no permission
	// rule decides. Default: ask.
	Approval permission.Mode
	// Tools, when set, limits the exposed tools to these (the server's
	// names); a listed tool the server does not offer is an error at start.
	Tools []string
	// StartTimeout bounds starting, the handshake and listing the tools;
	// CallTimeout bounds each call.
	StartTimeout time.Duration
	CallTimeout  time.Duration

	// File and Pos say where the entry was declared (for messages).
	File string
	Pos  diag.Pos
}

// Defaults of a ServerSpec.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 60 * time.Second
	// DefaultPath is the server's PATH unless its env sets one: the
	// system directories, as for sandboxed code.
	DefaultPath = "/usr/local/bin:/usr/bin:/bin"
	maxTimeoutS = 3600
)

// Diagnostic codes of the [mcp] table (docs/mcp.md).
const (
	CodeConfig   = "E-MCP-CONFIG"   // the TOML does not parse, or [mcp] is malformed
	CodeServer   = "E-MCP-SERVER"   // a server entry is invalid
	CodeApproval = "E-MCP-APPROVAL" // an approval mode is not ask, gated or always
)

// serverName is what may stand between mcp__ and __<tool>: lower case, no
// double underscore, short enough to leave room for the tool's name.
var serverName = lazyre.New(`^[a-z][a-z0-9_-]{0,23}$`)

var envName = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

var serverKeys = []string{"name", "command", "env", "pass_env", "dir", "approval", "tools", "start_timeout_s", "call_timeout_s"}

// LoadConfig reads the [mcp] table of the agentlab.toml at file (found by
// the caller: the nearest one up the tree). A missing file or table means
// no servers. Every problem is a diagnostic with line and column; the
// specs are nil when there is any error.
func LoadConfig(file string) ([]ServerSpec, diag.List) {
	data, err := fsutil.ReadConfigFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var ds diag.List
		ds.Errorf(file, diag.Pos{Line: 1, Col: 1}, CodeConfig, "check that the file exists and is readable", "cannot read the configuration: %v", unwrapPath(err))
		return nil, ds
	}
	return ParseConfig(file, data)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseConfig reads the [mcp] table from the bytes of file. Relative
// working directories are resolved against file's directory.
func ParseConfig(file string, data []byte) ([]ServerSpec, diag.List) {
	var ds diag.List
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		pos := diag.Pos{Line: 1, Col: 1}
		msg := err.Error()
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			pos = diag.Pos{Line: row, Col: col}
		}
		ds.Errorf(file, pos, CodeConfig, "fix the TOML syntax at this position", "not valid TOML: %s", msg)
		return nil, ds
	}
	raw, ok := doc["mcp"]
	if !ok {
		return nil, nil
	}
	c := &checker{file: file, pos: indexPositions(data), ds: &ds}
	table, ok := raw.(map[string]any)
	if !ok {
		c.errf(CodeConfig, "write it as a table: [[mcp.servers]] entries", c.at("mcp"), "mcp is %s, not a table", typeName(raw))
		return nil, ds
	}
	var specs []ServerSpec
	for _, k := range sortedKeys(table) {
		if k != "servers" {
			c.errf(CodeConfig, "the only key of [mcp] is servers: declare each server as [[mcp.servers]]", c.keyAt("mcp", k),
				"unknown key mcp.%s%s", k, didYouMean(k, []string{"servers"}))
			continue
		}
		list, ok := table[k].([]any)
		if !ok {
			c.errf(CodeConfig, "declare each server as its own [[mcp.servers]] table", c.at("mcp", "servers"),
				"mcp.servers is %s, not a list of tables", typeName(table[k]))
			continue
		}
		seen := map[string]int{}
		for i, item := range list {
			s, ok := c.server(i, item)
			if !ok {
				continue
			}
			if j, dup := seen[s.Name]; dup {
				first := specs[j].Pos
				c.errf(CodeServer, "give every server a name of its own", c.at("mcp", "servers", strconv.Itoa(i), "name"),
					"server name %q is already used by the server declared at line %d", s.Name, first.Line)
				continue
			}
			seen[s.Name] = len(specs)
			specs = append(specs, s)
		}
	}
	if ds.HasErrors() {
		return nil, ds
	}
	return specs, ds
}

// Merge combines the servers of several configuration files, the one of
// highest precedence first (a run passes the user's config.toml, then the
// project's agentlab.toml, so that a project file cannot replace a server
// the user declared): a server declared under the same name in a file of
// higher precedence replaces the whole entry of a lower one; the others
// are kept.
// The result is sorted by name.
func Merge(lists ...[]ServerSpec) []ServerSpec {
	seen := map[string]bool{}
	var out []ServerSpec
	for _, l := range lists {
		for _, s := range l {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Select picks the servers that the given tool names need — those named
// by an mcp__<server>__<tool> name — so that a run starts only the
// servers its flow uses, and a broken server cannot fail a run that does
// not use it. unknown lists the server names that no spec declares,
// sorted, for an error that names them.
func Select(specs []ServerSpec, toolNames []string) (use []ServerSpec, unknown []string) {
	want := map[string]bool{}
	for _, n := range toolNames {
		if server, _, ok := SplitName(n); ok {
			want[server] = true
		}
	}
	for _, s := range specs {
		if want[s.Name] {
			use = append(use, s)
			delete(want, s.Name)
		}
	}
	for n := range want {
		unknown = append(unknown, n)
	}
	sort.Strings(unknown)
	return use, unknown
}

// checker collects the diagnostics of one file.
type checker struct {
	file string
	pos  *positions
	ds   *diag.List
}

func (c *checker) errf(code, fix string, p diag.Pos, format string, args ...any) {
	c.ds.Errorf(c.file, p, code, fix, format, args...)
}

// at is where the value at path was written; it falls back to the key,
// then to the nearest enclosing key, then to the first line.
func (c *checker) at(path ...string) diag.Pos {
	for n := len(path); n > 0; n-- {
		if p, ok := c.pos.value(path[:n]...); ok {
			return p
		}
		if p, ok := c.pos.key(path[:n]...); ok {
			return p
		}
	}
	return diag.Pos{Line: 1, Col: 1}
}

// keyAt is where the key at path was written (for unknown keys).
func (c *checker) keyAt(path ...string) diag.Pos {
	if p, ok := c.pos.key(path...); ok {
		return p
	}
	return c.at(path...)
}

// server checks one [[mcp.servers]] entry.
func (c *checker) server(i int, item any) (ServerSpec, bool) {
	idx := strconv.Itoa(i)
	base := []string{"mcp", "servers", idx}
	path := func(k ...string) []string { return append(append([]string(nil), base...), k...) }
	s := ServerSpec{File: c.file, Pos: c.keyAt(base...), Approval: permission.ModeAsk,
		StartTimeout: DefaultStartTimeout, CallTimeout: DefaultCallTimeout}
	t, ok := item.(map[string]any)
	if !ok {
		c.errf(CodeServer, "declare each server as a [[mcp.servers]] table", s.Pos, "server %d is %s, not a table", i+1, typeName(item))
		return s, false
	}
	before := len(*c.ds)
	label := fmt.Sprintf("server %d", i+1)
	if n, ok := t["name"].(string); ok && n != "" {
		label = fmt.Sprintf("server %q", n)
	}
	for _, k := range sortedKeys(t) {
		v := t[k]
		at := c.at(path(k)...)
		switch k {
		case "name":
			n, ok := v.(string)
			switch {
			case !ok:
				c.errf(CodeServer, `write name = "<server>"`, at, "%s: name is %s, not a string", label, typeName(v))
			case !serverName.MatchString(n) || strings.Contains(n, "__"):
				c.errf(CodeServer, "use 1 to 24 lower-case letters, digits, - and single _, starting with a letter (it becomes part of every tool name: mcp__<name>__<tool>)",
					at, "server name %q is not valid", n)
			default:
				s.Name = n
			}
		case "command":
			l, ok := stringList(v)
			switch {
			case !ok:
				c.errf(CodeServer, `write command = ["program", "arg", …]: a list of strings, run without a shell`, at, "%s: command is %s, not a list of strings", label, typeName(v))
			case len(l) == 0 || strings.TrimSpace(l[0]) == "":
				c.errf(CodeServer, `name the program to run: command = ["program", "arg", …]`, at, "%s: command is empty", label)
			default:
				for j, a := range l {
					if strings.ContainsRune(a, 0) {
						c.errf(CodeServer, "remove the NUL character", c.at(path(k, strconv.Itoa(j))...), "%s: command argument %d contains a NUL character", label, j+1)
					}
				}
				s.Command = l
			}
		case "env":
			m, ok := v.(map[string]any)
			if !ok {
				c.errf(CodeServer, `write env = { NAME = "value", … }`, at, "%s: env is %s, not a table of strings", label, typeName(v))
				continue
			}
			s.Env = map[string]string{}
			for _, name := range sortedKeys(m) {
				val, ok := m[name].(string)
				vat := c.at(path(k, name)...)
				switch {
				case !envName.MatchString(name):
					c.errf(CodeServer, "use letters, digits and _, not starting with a digit", c.keyAt(path(k, name)...), "%s: %q is not a valid environment variable name", label, name)
				case !ok:
					c.errf(CodeServer, fmt.Sprintf(`write %s = "…" (quote numbers and booleans)`, name), vat, "%s: env.%s is %s, not a string", label, name, typeName(m[name]))
				case strings.ContainsRune(val, 0):
					c.errf(CodeServer, "remove the NUL character", vat, "%s: env.%s contains a NUL character", label, name)
				default:
					s.Env[name] = val
				}
			}
		case "pass_env":
			l, ok := stringList(v)
			if !ok {
				c.errf(CodeServer, `write pass_env = ["NAME", …]`, at, "%s: pass_env is %s, not a list of strings", label, typeName(v))
				continue
			}
			for j, name := range l {
				if !envName.MatchString(name) {
					c.errf(CodeServer, "use letters, digits and _, not starting with a digit", c.at(path(k, strconv.Itoa(j))...), "%s: %q is not a valid environment variable name", label, name)
				}
			}
			s.PassEnv = l
		case "dir":
			d, ok := v.(string)
			if !ok || d == "" {
				c.errf(CodeServer, `write dir = "<directory>" (relative to this file's directory)`, at, "%s: dir must be a non-empty string", label)
				continue
			}
			s.Dir = d
		case "approval":
			m, _ := v.(string)
			switch permission.Mode(m) {
			case permission.ModeAsk, permission.ModeGated, permission.ModeAlways:
				s.Approval = permission.Mode(m)
			default:
				c.errf(CodeApproval, `use approval = "ask" (a person decides; the default), "gated" (a model judges, unsure goes to a person) or "always"`,
					at, "%s: approval %s is not ask, gated or always", label, quoteValue(v))
			}
		case "tools":
			l, ok := stringList(v)
			if !ok || len(l) == 0 {
				c.errf(CodeServer, `write tools = ["tool", …] with the server's tool names, or leave it out to expose every tool`, at, "%s: tools must be a non-empty list of strings", label)
				continue
			}
			s.Tools = l
		case "start_timeout_s", "call_timeout_s":
			n, ok := v.(int64)
			if !ok || n < 1 || n > maxTimeoutS {
				c.errf(CodeServer, fmt.Sprintf("give a whole number of seconds from 1 to %d", maxTimeoutS), at, "%s: %s is %s", label, k, quoteValue(v))
				continue
			}
			if k == "start_timeout_s" {
				s.StartTimeout = time.Duration(n) * time.Second
			} else {
				s.CallTimeout = time.Duration(n) * time.Second
			}
		default:
			c.errf(CodeServer, "the keys of a server are "+strings.Join(serverKeys, ", "), c.keyAt(path(k)...),
				"%s: unknown key %q%s", label, k, didYouMean(k, serverKeys))
		}
	}
	if _, ok := t["name"]; !ok {
		c.errf(CodeServer, `add name = "<server>"; its tools are exposed as mcp__<name>__<tool>`, s.Pos, "server %d has no name", i+1)
	}
	if _, ok := t["command"]; !ok {
		c.errf(CodeServer, `add command = ["program", "arg", …]`, s.Pos, "%s has no command", label)
	}
	if len(*c.ds) > before {
		return s, false
	}
	if s.Dir == "" {
		s.Dir = filepath.Dir(c.file)
	} else if !filepath.IsAbs(s.Dir) {
		s.Dir = filepath.Join(filepath.Dir(c.file), s.Dir)
	}
	if abs, err := filepath.Abs(s.Dir); err == nil {
		s.Dir = abs
	}
	return s, true
}

func stringList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// typeName names a decoded TOML value's type for a message, with its
// article: "an integer".
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// quoteValue shows a value as written: strings quoted, others as they are.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	if _, ok := v.(map[string]any); ok {
		return "a table"
	}
	if _, ok := v.([]any); ok {
		return "a list"
	}
	return fmt.Sprint(v)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// didYouMean suggests the known key within two edits of k, as
// " (did you mean "x"?)", or "".
func didYouMean(k string, known []string) string {
	if best, ok := diag.ClosestWithin(k, known, 2); ok {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
