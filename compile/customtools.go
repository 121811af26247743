package compile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentlab/agentlab/compile/tmpl"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/tools"
)

// Custom tools are declared under the flow's top-level `tools:` and become
// the plan's Tools, in the form package run/tools reads (DecodeCustom):
// {name, description, effect, params, http | command}. The run checks them
// again before it registers them; the checks here give the same mistakes a
// line and column at lint time.

var (
	httpToolSchema = newSchema("http tool",
		fEnum("method", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"),
		fStr("url").required(),
		fAny("query"),
		fAny("headers"),
		fAny("body"),
	)
	customToolSchema = newSchema("custom tool",
		fStr("description").required(),
		fAny("args"),
		fEnum("effect", "read", "write"),
		fObj("http", httpToolSchema),
		fStrs("command"),
		fInt("timeout_s").atLeast(1).atMost(3600),
	)
)

// customToolName is the form of a declared tool's name: what every model
// provider accepts, in the flow's lowercase id style.
var customToolName = lazyre.New(`^[a-z][a-z0-9_]{0,63}$`)

// toolSecretRef finds a {{ secret.NAME }} reference.
var toolSecretRef = lazyre.New(`\{\{[^}]*\bsecret\.`)

// checkCustomTools checks the declarations of f.top["tools"] and records
// each tool's effect in f.customTools for the node checks. A declaration
// with errors is still recorded (as its declared or default effect), so
// that nodes naming it do not also get W-TOOL-UNKNOWN.
func (f *flow) checkCustomTools() {
	decl, _ := f.top["tools"].(map[string]any)
	tv := f.root.Get("tools")
	f.customTools = map[string]string{}
	for _, name := range sortedMapKeys(decl) {
		m, _ := decl[name].(map[string]any)
		v := tv.Get(name)
		key := tv.KeyOf(name)
		declErr := func(at *V, fix, format string, args ...any) {
			if at == nil {
				at = v
			}
			f.dec.errf(at, "E-SCHEMA-TOOL-DECL", fix, "custom tool %q: "+format, append([]any{name}, args...)...)
		}
		switch {
		case !customToolName.MatchString(name):
			f.dec.errf(key, "E-SCHEMA-PATTERN", "name the tool with lowercase letters, digits and _, starting with a letter (at most 64 characters)",
				"%q is not a valid custom tool name", name)
		case slices.Contains(builtinTools, name):
			f.dec.errf(key, "E-SCHEMA-TOOL-NAME", "give the tool a name of its own; built-in tools are "+strings.Join(builtinTools, ", "),
				"custom tool %q has the name of a built-in tool", name)
		default:
			if p, ok := tools.ReservedPrefix(name); ok {
				f.dec.errf(key, "E-SCHEMA-TOOL-NAME", "give the tool a name that does not start with "+strings.Join(tools.ReservedPrefixes, ", "),
					"custom tool %q uses the prefix %s, reserved for agentlab's own tools: an operator's rule for %s* must not speak for it", name, p, p)
			}
		}
		if m == nil {
			f.customTools[name] = "write"
			continue
		}
		h, isHTTP := m["http"].(map[string]any)
		argv, isCmd := m["command"].([]any)
		switch {
		case isHTTP && isCmd:
			f.dec.errf(v.KeyOf("command"), "E-SCHEMA-EXCLUSIVE", "keep either `http:` or `command:`",
				"custom tool %q has both http and command; a tool is one or the other", name)
		case !isHTTP && !isCmd && v.Get("http").IsNull() && v.Get("command").IsNull() && !hasUnknownKey(v, customToolSchema):
			// With a misspelt key (comand:) the unknown-key error says it all.
			f.dec.errf(key, "E-SCHEMA-REQUIRED", "add `http: {url: …}` or `command: [program, args…]`",
				"custom tool %q needs http or command", name)
		}
		effect, _ := m["effect"].(string)
		if effect == "" {
			effect = "write"
			if meth, _ := h["method"].(string); isHTTP && (meth == "" || meth == "GET" || meth == "HEAD") {
				effect = "read"
			}
		}
		f.customTools[name] = effect
		if a, ok := m["args"]; ok {
			if err := checkArgsSchema(a); err != "" {
				declErr(v.Get("args"), "write `args:` as a JSON Schema of an object, e.g. {type: object, properties: {q: {type: string}}, required: [q]}",
					"args is not a valid JSON Schema: %s", err)
			}
		}
		if _, ok := m["timeout_s"]; ok && isHTTP {
			f.dec.errf(v.KeyOf("timeout_s"), "E-SCHEMA-EXCLUSIVE", "remove `timeout_s:`; HTTP tools use the [http_fetch] timeout",
				"timeout_s applies only to command tools")
		}
		if isHTTP {
			f.checkHTTPTool(name, h, v.Get("http"), declErr)
		}
		if isCmd {
			cv := v.Get("command")
			if len(argv) == 0 {
				declErr(cv, "write `command: [program, arg, …]`", "command is empty")
			}
			for i, a := range argv {
				s, _ := a.(string)
				at := cv.Items()[i]
				switch {
				case i == 0 && strings.Contains(s, "{{"):
					declErr(at, "name the program literally; arguments may fill the other elements", "the program (command[0]) must be literal")
				case toolSecretRef.MatchString(s):
					declErr(at, "pass secrets in HTTP headers only; command arguments are recorded as evidence", "secrets may not appear in command arguments")
				default:
					checkToolTemplate(s, at, declErr)
				}
			}
			strs := make([]string, len(argv))
			for i, a := range argv {
				strs[i], _ = a.(string)
			}
			if i := tools.CodeTemplate(strs); i >= 0 {
				declErr(cv.Items()[i], "run a program file, or pass the argument after the program as a positional parameter ([sh, -c, 'grep -- \"$1\" notes.txt', sh, \"{{ args.q }}\"])",
					"element %d is a program the shell or interpreter runs, and an argument fills it: whoever chooses the arguments could run anything", i)
			}
		}
	}
}

// checkHTTPTool checks an HTTP template: a literal scheme and host, secrets
// in headers only, string-valued query and headers, parseable templates.
func (f *flow) checkHTTPTool(name string, h map[string]any, hv *V, declErr func(*V, string, string, ...any)) {
	u, _ := h["url"].(string)
	uv := hv.Get("url")
	scheme, rest, ok := strings.Cut(u, "://")
	host, _, _ := strings.Cut(rest, "/")
	switch {
	case u == "":
	case !ok || (scheme != "http" && scheme != "https") || host == "" || strings.Contains(scheme+host, "{{"):
		declErr(uv, "start the url with a literal http(s)://host/; arguments may fill the path only",
			"url %q must start with a literal scheme and host", u)
	case toolSecretRef.MatchString(u):
		declErr(uv, "pass secrets in headers, as {{ secret.NAME }}; URLs are recorded as evidence", "secrets may appear in headers only")
	default:
		checkToolTemplate(u, uv, declErr)
	}
	for _, key := range []string{"query", "headers"} {
		x, ok := h[key]
		if !ok {
			continue
		}
		mv := hv.Get(key)
		m, isMap := x.(map[string]any)
		if !isMap {
			f.dec.errf(mv, "E-SCHEMA-TYPE", "write `"+key+":` as a mapping of name: template",
				"%q must be a mapping, found %s", "tools."+name+".http."+key, mv.kindName())
			continue
		}
		for _, k := range sortedMapKeys(m) {
			s, isStr := m[k].(string)
			at := mv.Get(k)
			switch {
			case !isStr:
				f.dec.errf(at, "E-SCHEMA-TYPE", "quote the value to make it a string",
					"%q must be a string", "tools."+name+".http."+key+"."+k)
			case key == "query" && toolSecretRef.MatchString(s):
				declErr(at, "pass secrets in headers, as {{ secret.NAME }}; queries are recorded as evidence", "secrets may appear in headers only")
			default:
				checkToolTemplate(s, at, declErr)
				if key == "headers" {
					f.checkSecretBound(s, host, at)
				}
			}
		}
	}
	if b, ok := h["body"]; ok {
		raw, _ := json.Marshal(b)
		if toolSecretRef.Match(raw) {
			declErr(hv.Get("body"), "pass secrets in headers, as {{ secret.NAME }}; bodies are recorded as evidence", "secrets may appear in headers only")
		}
	}
}

// CodeToolSecret is a {{ secret.NAME }} the operator's configuration does
// not bind to the tool's host.
const CodeToolSecret = "E-SCHEMA-TOOL-SECRET"

// secretName finds the names of {{ secret.NAME }} references.
var secretName = lazyre.New(`secret\.([A-Za-z_][A-Za-z0-9_]*)`)

// checkSecretBound reports each secret of a header template that the
// operator's [secrets] tables (the user's config.toml, the nearest
// agentlab.toml) do not bind to host: the run would refuse to send it.
func (f *flow) checkSecretBound(s, host string, at *V) {
	if !strings.Contains(s, "secret.") {
		return
	}
	if f.secretHosts == nil {
		files := []string{provider.UserConfigFile()}
		if f.dir != "" {
			files = append(files, fsutil.FindUp(f.dir, "agentlab.toml"))
		}
		f.secretHosts, _ = tools.LoadSecretBindings(files...)
	}
	for _, m := range secretName.FindAllStringSubmatch(s, -1) {
		hosts, ok := f.secretHosts[m[1]]
		fix := fmt.Sprintf("bind it in agentlab.toml or the user config: [secrets.%s] hosts = [%q]", m[1], host)
		switch {
		case !ok:
			f.dec.errf(at, CodeToolSecret, fix, "secret %s is bound to no host by the operator's configuration; the run would never send it", m[1])
		case !tools.HostMatches(hosts, "https://"+host+"/") && !tools.HostMatches(hosts, "http://"+host+"/"):
			f.dec.errf(at, CodeToolSecret, fix, "secret %s may be sent only to %s, not to %s", m[1], strings.Join(hosts, ", "), host)
		}
	}
}

// checkToolTemplate reports a template that does not parse. Its references
// (args.*, secret.*) are not flow names, so only the syntax is checked.
func checkToolTemplate(s string, at *V, declErr func(*V, string, string, ...any)) {
	if !strings.Contains(s, "{{") {
		return
	}
	_, issues := tmpl.Parse(s)
	for _, i := range issues {
		if i.Severity == diag.Error {
			declErr(at, "write templates as {{ args.NAME }}", "template %q: %s", s, i.Message)
			return
		}
	}
}

// checkArgsSchema compiles a tool's argument schema and returns why it is
// not valid ("" when it is). The arguments of a call are a JSON object, so
// a schema typed as anything else can never accept a call.
func checkArgsSchema(x any) string {
	m, ok := x.(map[string]any)
	if !ok {
		return "it must be a mapping"
	}
	if t, ok := m["type"]; ok && t != "object" {
		return `its type must be "object" (a call's arguments are an object)`
	}
	raw, err := json.Marshal(normValue(m))
	if err != nil {
		return err.Error()
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err.Error()
	}
	c := jsonschema.NewCompiler()
	const url = "agentlab:tool/args.json"
	if err := c.AddResource(url, doc); err != nil {
		return err.Error()
	}
	if _, err := c.Compile(url); err != nil {
		// The first line names the failing keyword; the rest repeats the URL.
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i] + strings.TrimSpace(strings.ReplaceAll(msg[i:], "\n", " "))
		}
		return strings.TrimPrefix(msg, "jsonschema: ")
	}
	return ""
}

// buildCustomTools returns the plan form of the declared tools, nil when
// there are none (so that plans without tools keep their hash).
func (f *flow) buildCustomTools() map[string]map[string]any {
	decl, _ := f.top["tools"].(map[string]any)
	if len(decl) == 0 {
		return nil
	}
	out := make(map[string]map[string]any, len(decl))
	for name, x := range decl {
		m, _ := x.(map[string]any)
		t := map[string]any{"name": name, "description": m["description"]}
		if e, ok := m["effect"]; ok {
			t["effect"] = e
		}
		if a, ok := m["args"]; ok {
			t["params"] = a
		}
		if h, ok := m["http"].(map[string]any); ok {
			t["http"] = h
		}
		if c, ok := m["command"]; ok {
			cmd := map[string]any{"argv": c}
			if to, ok := m["timeout_s"]; ok {
				cmd["timeout_s"] = to
			}
			t["command"] = cmd
		}
		out[name] = normValue(t).(map[string]any)
	}
	return out
}

// hasUnknownKey reports whether mapping v has a key schema s does not know.
func hasUnknownKey(v *V, s *schema) bool {
	for _, k := range v.Keys() {
		if s.byName[k.Str] == nil {
			return true
		}
	}
	return false
}

func sortedMapKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
