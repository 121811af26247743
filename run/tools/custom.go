package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentlab/agentlab/compile/tmpl"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/run/redact"
	"github.com/agentlab/agentlab/run/sandbox"
)

// CustomSpec is a tool declared in a flow: an HTTP template or a command.
// Templates use the flow's template syntax over `args` (the call's
// arguments) and, in HTTP headers only, `secret` (values looked up when
// the call is made, so the plan holds the name of a secret, never its
// value).
type CustomSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Effect      Effect         `json:"effect,omitempty"` // default: read for GET/HEAD, write otherwise
	Params      map[string]any `json:"params,omitempty"` // JSON Schema of the arguments object
	HTTP        *HTTPSpec      `json:"http,omitempty"`
	Command     *CommandSpec   `json:"command,omitempty"`
}

// HTTPSpec is a templated request. The scheme and host of URL must be
// literal: arguments may fill the path, never choose the server.
type HTTPSpec struct {
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url"`
	Query   map[string]string `json:"query,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"` // a template string, or a JSON value whose strings are templates
}

// CommandSpec is a templated argv run in the sandbox, without a shell:
// each element becomes exactly one argument. Argv[0] must be literal.
type CommandSpec struct {
	Argv     []string `json:"argv"`
	TimeoutS int      `json:"timeout_s,omitempty"`
}

// CustomDeps is what custom tools need at run time.
type CustomDeps struct {
	Fetcher *Fetcher
	// Secret returns a secret's value; default: the environment variable of
	// that name.
	Secret func(name string) (string, bool)
	// WorkDir is the working directory of command tools (under the run
	// directory); Sandbox limits other than the timeout use the defaults.
	WorkDir string
	// SecretHosts binds each secret to the hosts it may be sent to (the
	// operator's [secrets] tables). A secret it does not name is never
	// sent.
	SecretHosts SecretBindings
	// Backend is the sandbox backend the operator chose for command tools;
	// "" detects it (AGENTLAB_SANDBOX, else bwrap where it works).
	Backend sandbox.Backend
}

// DecodeCustom reads a declaration from its plan form; unknown keys are
// errors.
func DecodeCustom(m map[string]any) (CustomSpec, error) {
	var s CustomSpec
	raw, err := json.Marshal(m)
	if err != nil {
		return s, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, refuse(fmt.Sprint(m["name"]), CodeDecl, "use the keys name, description, effect, params, http or command", "tool declaration cannot be read: %v", err)
	}
	return s, nil
}

var secretRef = lazyre.New(`\{\{[^}]*\bsecret\.`)

// secretName finds the names of the secrets a header template uses.
var secretName = lazyre.New(`secret\.([A-Za-z_][A-Za-z0-9_]*)`)

// RegisterHeaderSecrets registers for redaction the values of the secrets
// an HTTP tool's headers name ({{ secret.NAME }}), read through secret
// (the environment when nil): they are secret from the start of a run —
// before its plan is checked for them and before any call could send them
// anywhere to be echoed.
func RegisterHeaderSecrets(s CustomSpec, secret func(string) (string, bool)) {
	if s.HTTP == nil {
		return
	}
	if secret == nil {
		secret = lookupEnv
	}
	for _, m := range secretName.FindAllStringSubmatch(strings.Join(mapValues(s.HTTP.Headers), " "), -1) {
		if v, ok := secret(m[1]); ok {
			redact.Add(v)
		}
	}
}

// NewCustom checks a declaration and returns the tool.
func NewCustom(s CustomSpec, deps CustomDeps) (Tool, error) {
	bad := func(format string, args ...any) error {
		return refuse(s.Name, CodeDecl, "", format, args...)
	}
	if p, ok := ReservedPrefix(s.Name); ok || s.Name == "run_code" {
		if !ok {
			p = "run_code"
		}
		return nil, bad("the name is reserved for agentlab's own tools (%s); give the tool a name of its own", p)
	}
	if (s.HTTP == nil) == (s.Command == nil) {
		return nil, bad("declare exactly one of http or command")
	}
	if s.Effect == Depends {
		return nil, bad("custom tools declare read or write, not depends")
	}
	if s.Params == nil {
		s.Params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	if s.Effect != "" && !s.Effect.Valid() {
		return nil, bad("effect %q is not read or write", s.Effect)
	}
	if s.HTTP != nil {
		h := s.HTTP
		h.Method = strings.ToUpper(h.Method)
		if h.Method == "" {
			h.Method = http.MethodGet
		}
		if s.Effect == "" {
			s.Effect = Write
			if h.Method == http.MethodGet || h.Method == http.MethodHead {
				s.Effect = Read
			}
		}
		scheme, rest, ok := strings.Cut(h.URL, "://")
		hostPart, _, _ := strings.Cut(rest, "/")
		if !ok || strings.Contains(scheme+hostPart, "{{") {
			return nil, bad("url %q must start with a literal scheme and host (http(s)://host/…); arguments may fill the path only", h.URL)
		}
		body, _ := json.Marshal(h.Body)
		query, _ := json.Marshal(h.Query)
		if secretRef.MatchString(h.URL) || secretRef.Match(body) || secretRef.Match(query) {
			return nil, bad("secrets may appear in headers only (URLs, queries and bodies are recorded as evidence)")
		}
		if deps.Fetcher == nil {
			return nil, bad("no fetcher configured for HTTP tools")
		}
	} else {
		if len(s.Command.Argv) == 0 || strings.Contains(s.Command.Argv[0], "{{") {
			return nil, bad("command.argv must start with a literal program name")
		}
		for _, a := range s.Command.Argv {
			if secretRef.MatchString(a) {
				return nil, bad("secrets may not appear in command arguments")
			}
		}
		if i := CodeTemplate(s.Command.Argv); i >= 0 {
			return nil, bad("command element %d (%q) is a program the shell or interpreter runs, filled by an argument: pass the argument after the program as a positional parameter instead", i, s.Command.Argv[i])
		}
		if s.Effect == "" {
			s.Effect = Write
		}
		if deps.WorkDir == "" {
			return nil, bad("no working directory configured for command tools")
		}
	}
	if deps.Secret == nil {
		deps.Secret = lookupEnv
	}
	RegisterHeaderSecrets(s, deps.Secret)
	if _, err := compileSchema(s.Name, s.Params); err != nil {
		return nil, bad("params: %v", err)
	}
	return &customTool{spec: s, deps: deps}, nil
}

type customTool struct {
	spec CustomSpec
	deps CustomDeps
}

func (t *customTool) Info() Info {
	return Info{Name: t.spec.Name, Description: t.spec.Description, Schema: t.spec.Params, Effect: t.spec.Effect}
}

func (t *customTool) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	var a map[string]any
	if err := decodeArgs(t.spec.Name, args, &a); err != nil {
		return nil, err
	}
	if t.spec.HTTP != nil {
		return t.callHTTP(ctx, a)
	}
	return t.callCommand(ctx, a)
}

func (t *customTool) render(src string, env map[string]any) (string, error) {
	s, err := tmpl.Render(src, env)
	if err != nil {
		return "", refuse(t.spec.Name, CodeArgs, "pass every argument the tool's templates use", "template %q: %v", src, err)
	}
	return s, nil
}

func (t *customTool) callHTTP(ctx context.Context, args map[string]any) (*Result, error) {
	h := t.spec.HTTP
	u, err := t.renderURL(h.URL, args)
	if err != nil {
		return nil, err
	}
	raw := map[string]any{"args": args}
	if len(h.Query) > 0 {
		pu, err := url.Parse(u)
		if err != nil {
			return nil, refuse(t.spec.Name, CodeArgs, "", "rendered URL cannot be parsed: %v", err)
		}
		q := pu.Query()
		for _, k := range sortedKeys(h.Query) {
			v, err := t.render(h.Query[k], raw)
			if err != nil {
				return nil, err
			}
			q.Set(k, v)
		}
		pu.RawQuery = q.Encode()
		u = pu.String()
	}
	header := http.Header{}
	if len(h.Headers) > 0 {
		secrets := map[string]any{}
		for _, m := range secretName.FindAllStringSubmatch(strings.Join(mapValues(h.Headers), " "), -1) {
			if err := t.deps.SecretHosts.sendable(m[1], u); err != nil {
				return nil, refuse(t.spec.Name, CodeSecretHost, "bind the secret to the API's host in the operator's configuration: [secrets."+m[1]+"] hosts = [\"…\"]", "%v", err)
			}
			v, ok := t.deps.Secret(m[1])
			if !ok {
				return nil, refuse(t.spec.Name, CodeArgs, "set the environment variable "+m[1]+" (secrets are never written to the plan)", "secret %s is not set", m[1])
			}
			redact.Add(v)
			secrets[m[1]] = v
		}
		env := map[string]any{"args": args, "secret": secrets}
		for _, k := range sortedKeys(h.Headers) {
			v, err := t.render(h.Headers[k], env)
			if err != nil {
				return nil, err
			}
			if strings.ContainsAny(v, "\r\n") {
				return nil, refuse(t.spec.Name, CodeArgs, "", "header %s would contain a line break", k)
			}
			header.Set(k, v)
		}
	}
	var body []byte
	switch b := h.Body.(type) {
	case nil:
	case string:
		s, err := t.render(b, raw)
		if err != nil {
			return nil, err
		}
		body = []byte(s)
	default:
		v, err := t.renderValue(b, raw)
		if err != nil {
			return nil, err
		}
		if body, err = json.Marshal(v); err != nil {
			return nil, err
		}
		if header.Get("Content-Type") == "" {
			header.Set("Content-Type", "application/json")
		}
	}
	resp, err := t.deps.Fetcher.Do(ctx, t.spec.Name, Request{Method: h.Method, URL: u, Header: header, Body: body})
	if err != nil {
		return nil, err
	}
	return responseResult(resp), nil
}

// renderURL fills the URL template, escaping each argument for the
// component it lands in: in the path as one segment (a "/" or "?" in it is
// escaped, so it cannot add segments or a query, and a value that would
// make a whole segment "." or ".." is refused), in the query or fragment
// as a query value (so "&admin=true" stays one value).
func (t *customTool) renderURL(tpl string, args map[string]any) (string, error) {
	cut := len(tpl)
	if i := strings.IndexAny(tpl, "?#"); i >= 0 {
		cut = i
	}
	escape := func(f func(string) string) map[string]any {
		out := map[string]any{}
		for k, v := range args {
			out[k] = f(scalarString(v))
		}
		return map[string]any{"args": out}
	}
	path, err := t.render(tpl[:cut], escape(url.PathEscape))
	if err != nil {
		return "", err
	}
	tsegs, rsegs := strings.Split(tpl[:cut], "/"), strings.Split(path, "/")
	for i, seg := range rsegs {
		if (seg == "." || seg == "..") && (i >= len(tsegs) || tsegs[i] != seg) {
			return "", refuse(t.spec.Name, CodeArgs, "pass a value that names something, not . or ..", "an argument would make the URL path segment %q, which climbs the server's path", seg)
		}
	}
	rest, err := t.render(tpl[cut:], escape(url.QueryEscape))
	if err != nil {
		return "", err
	}
	return path + rest, nil
}

// wholeTag matches a string that is one template tag and nothing else.
var wholeTag = lazyre.New(`^\{\{\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$`)

// renderValue renders a structured body: a string that is exactly one
// {{ args.x }} becomes the argument's value with its JSON type; other
// strings are rendered as text.
func (t *customTool) renderValue(v any, env map[string]any) (any, error) {
	switch x := v.(type) {
	case string:
		if m := wholeTag.FindStringSubmatch(x); m != nil {
			if a, ok := env["args"].(map[string]any)[m[1]]; ok {
				return a, nil
			}
		}
		return t.render(x, env)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := t.renderValue(e, env)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := t.renderValue(e, env)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func (t *customTool) callCommand(ctx context.Context, args map[string]any) (*Result, error) {
	c := t.spec.Command
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		s, err := t.render(a, map[string]any{"args": args})
		if err != nil {
			return nil, err
		}
		if i > 0 && optionLike(a, s) {
			return nil, refuse(t.spec.Name, CodeArgs, "pass a value that does not start with -", "argument %d would start with %q and be read as an option by %s", i, "-", c.Argv[0])
		}
		argv[i] = s
	}
	spec := sandbox.Spec{Argv: argv, Dir: t.deps.WorkDir, Backend: t.deps.Backend}
	if c.TimeoutS > 0 {
		spec.Timeout = time.Duration(c.TimeoutS) * time.Second
	}
	res, err := sandbox.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"exit_code": res.ExitCode, "backend": string(res.Backend), "timed_out": res.TimedOut, "killed": res.Killed}
	if res.ExitCode != 0 {
		msg := strings.TrimSpace(string(res.Stderr))
		if len(msg) > 500 {
			msg = msg[len(msg)-500:]
		}
		why := "exit status " + strconv.Itoa(res.ExitCode)
		if res.Killed {
			why = res.KillReason
		}
		return nil, fmt.Errorf("%s: command failed (%s): %s", t.spec.Name, why, msg)
	}
	out := &Result{Text: string(res.Stdout), Truncated: res.OutputTruncated, Meta: meta, Value: string(res.Stdout)}
	if res.IsJSON {
		out.Value = res.Value
	}
	return out, nil
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}
