package compile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// builtinTools are the tools every agent can be given besides the
// db_query__<source> tools of the flow's sources (docs/agents.md).
var builtinTools = []string{"file_grep", "file_list", "file_read", "http_fetch", "run_code"}

// checkNodeFields applies the rules that tie several fields of one node
// together: either-or fields, fields required by a mode, tool names, and
// code files (whose content is inlined so the plan hash covers it).
func (f *flow) checkNodeFields(n *nodeInfo) {
	v := n.v
	has := func(k string) bool { _, ok := n.fields[k]; return ok }
	oneOf := func(a, b string) {
		switch {
		case has(a) && has(b):
			f.dec.errf(v.KeyOf(b), "E-SCHEMA-EXCLUSIVE", "keep either `"+a+":` or `"+b+":`",
				"node %q has both %q and %q; a %s node takes exactly one", n.id, a, b, n.typ)
		case !has(a) && !has(b) && v.KeyOf(a) == nil && v.KeyOf(b) == nil:
			f.dec.errf(v, "E-SCHEMA-REQUIRED", "add `"+a+":` or `"+b+":`",
				"node %q needs %q or %q", n.id, a, b)
		}
	}
	switch n.typ {
	case "code":
		oneOf("code", "file")
		if p := n.str("file"); p != "" && !has("code") && f.inside(v.Get("file"), p, "code file") {
			b, err := fsutil.FlowCap.ReadFile(filepath.Join(f.dir, p))
			var big *fsutil.TooLargeError
			switch {
			case errors.As(err, &big):
				f.dec.errf(v.Get("file"), "E-SCHEMA-FILE", "keep code files small; "+fsutil.FlowCap.Hint(), "code file %q is over the %s cap of %d bytes", p, fsutil.FlowCap.Key, big.Limit)
			case err != nil:
				f.dec.errf(v.Get("file"), "E-SCHEMA-FILE", "check the path; it is relative to the flow file's directory",
					"cannot read code file %q: %v", p, unwrapPathErr(err))
			case !utf8.Valid(b):
				f.dec.errf(v.Get("file"), "E-SCHEMA-FILE", "save the code file as UTF-8", "code file %q is not valid UTF-8", p)
			default:
				n.fields["code"] = string(b)
			}
		}
		// A node that never writes to stdout hands assign_to nothing; the
		// run would fail on it, so lint refuses it (this was the warning
		// W-CODE-NO-PRINT).
		if n.str("language") == "python" && n.str("assign_to") != "" {
			if code, ok := n.fields["code"].(string); ok && !writesStdout(code) {
				at := v.KeyOf("code")
				if at == nil {
					at = v.KeyOf("file")
				}
				f.l.Errorf(f.src.file, at.Pos(), "E-SCHEMA-NO-PRINT", "print the result (e.g. `print(json.dumps(result))`); stdout is what assign_to receives",
					"code node %q assigns to %q but its code never prints", n.id, n.str("assign_to"))
			}
		}
	case "merge":
		f.checkLiteralSQL(n, v.Get("sql")) // sqlcheck.go
		// The run needs a way to combine the inputs; with both, sql is used.
		if !has("key") && !has("sql") && v.KeyOf("key") == nil && v.KeyOf("sql") == nil {
			f.dec.errf(v, "E-SCHEMA-REQUIRED", "add `key:` (a column every input has) or `sql:`",
				"merge node %q needs %q or %q", n.id, "key", "sql")
		}
	case "loop":
		oneOf("over", "while")
		if !has("max_iterations") && v.KeyOf("max_iterations") == nil {
			f.dec.errf(v.Get("type"), "E-GRAPH-LOOP-UNBOUNDED", "add `max_iterations: N` to bound the loop",
				"loop %q has no max_iterations; every loop must be bounded", n.id)
		}
	case "metrics":
		oneOf("card", "metrics")
		if has("on_card_upgrade") && !has("card") {
			f.dec.errf(v.KeyOf("on_card_upgrade"), "E-SCHEMA-EXCLUSIVE", "remove `on_card_upgrade:` or pin a card",
				"on_card_upgrade applies only to a pinned card")
		}
	case "branch":
		if n.str("mode") == "semantic" {
			if !has("labels") || len(n.fields["labels"].([]any)) == 0 {
				f.dec.errf(v, "E-SCHEMA-REQUIRED", "list the labels the model picks from under `labels:`",
					"semantic branch %q needs at least one label", n.id)
			}
			if has("cases") {
				f.dec.errf(v.KeyOf("cases"), "E-SCHEMA-EXCLUSIVE", "remove `cases:`; a semantic branch routes by `labels:`",
					"semantic branch %q cannot have cases", n.id)
			}
			if !has("prompt") {
				f.dec.errf(v, "E-SCHEMA-REQUIRED", "add `prompt:` telling the model how to choose a label",
					"semantic branch %q needs a prompt", n.id)
			}
		} else {
			if !has("cases") || len(n.fields["cases"].([]any)) == 0 {
				if v.KeyOf("cases") == nil || has("cases") {
					f.dec.errf(v, "E-SCHEMA-REQUIRED", "add `cases: [{when: EXPR, port: NAME}]`",
						"branch %q needs at least one case", n.id)
				}
			}
			if has("labels") {
				f.dec.errf(v.KeyOf("labels"), "E-SCHEMA-EXCLUSIVE", "remove `labels:` or set `mode: semantic`",
					"labels apply only to a semantic branch")
			}
		}
		seen := map[string]bool{}
		for _, p := range branchPortVs(n) {
			if seen[p.Str] {
				f.dec.errf(p, "E-GRAPH-DUP-PORT", "give every case its own port; a port can have several edges",
					"port %q is declared twice in branch %q", p.Str, n.id)
			}
			seen[p.Str] = true
		}
	case "memory":
		if n.str("op") == "write" && !has("value") && v.KeyOf("value") == nil {
			f.dec.errf(v.Get("op"), "E-SCHEMA-REQUIRED", "add `value:` with what to write", "memory write %q needs a value", n.id)
		}
		if n.str("op") == "read" && has("value") {
			f.dec.errf(v.KeyOf("value"), "E-SCHEMA-EXCLUSIVE", "remove `value:`; a read returns the stored value",
				"memory read %q cannot have a value", n.id)
		}
	case "report":
		if n.str("claims") == "judge" && !has("judge") {
			f.dec.errf(v.Get("claims"), "E-SCHEMA-REQUIRED", "add `judge: {model: …, max_sentences: …, max_cost_usd: …}`",
				"report %q checks claims with a judge but has no `judge:` settings", n.id)
		}
	case "human":
		f.checkForm(n)
	case "retrieve":
		f.checkRetrieve(n) // retrievealpha.go
	case "tool":
		if t := n.str("tool"); t != "" {
			f.checkTool(v.Get("tool"), t, false)
			if strings.HasPrefix(t, "db_query__") {
				if a := v.Get("args"); a != nil {
					f.checkLiteralSQL(n, a.Get("sql"))
				}
			}
		}
	case "agent":
		if tv := v.Get("tools"); tv != nil && tv.Kind == vSeq {
			for _, e := range tv.Items() {
				if e.Kind == vScalar {
					f.checkTool(e, e.Str, true)
				}
			}
		}
	case "supervisor":
		if wv := v.Get("workers"); wv != nil && wv.Kind == vSeq {
			for _, w := range wv.Items() {
				if tv := w.Get("tools"); tv != nil && tv.Kind == vSeq {
					for _, e := range tv.Items() {
						if e.Kind == vScalar {
							f.checkTool(e, e.Str, true)
						}
					}
				}
			}
		}
	}
}

// checkTool checks a tool name: a db_query tool must name a declared
// source, and a model (agent, supervisor worker) may not be given a custom
// tool that writes: writes belong in a tool node fixed in the flow.
func (f *flow) checkTool(v *V, name string, byModel bool) {
	if src, ok := strings.CutPrefix(name, "db_query__"); ok {
		srcs, _ := f.top["sources"].(map[string]any)
		if _, ok := srcs[src]; !ok {
			names := make([]string, 0, len(srcs))
			for k := range srcs {
				names = append(names, k)
			}
			f.dec.errf(v, "E-SCHEMA-TOOL", "declare the source under `sources:` or fix the name",
				"tool %q queries source %q, which is not declared%s", name, src, suffix(didYouMean(src, names)))
		}
		return
	}
	for _, b := range builtinTools {
		if b == name {
			return
		}
	}
	if effect, ok := f.customTools[name]; ok {
		if byModel && effect != "read" {
			f.dec.errf(v, "E-SCHEMA-TOOL-EFFECT", "call the tool from a `tool` node, or declare it `effect: read` if it only observes",
				"custom tool %q writes (effect %s); agents may be given read tools only", name, effect)
		}
		return
	}
	// mcp__<server>__<tool> names a tool of an MCP server declared in
	// agentlab.toml; whether it exists is known only at run time.
	if mcpToolName.MatchString(name) {
		return
	}
	f.l.Warnf(f.src.file, v.Pos(), "W-TOOL-UNKNOWN", "use db_query__<source> or one of: "+strings.Join(builtinTools, ", "),
		"tool %q is not a built-in tool; %sit must be provided at run time", name, didYouMean(name, builtinTools))
}

// mcpToolName matches the names package run/tools/mcp gives server tools.
var mcpToolName = lazyre.New(`^mcp__[a-z][a-z0-9_-]{0,23}__[A-Za-z0-9_-]+$`)

// suffix turns an optional did-you-mean into the end of a message.
func suffix(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return "; " + s
}

// branchPortVs returns the port names a branch declares, as written.
func branchPortVs(n *nodeInfo) []*V {
	var out []*V
	if n.str("mode") == "semantic" {
		if lv := n.v.Get("labels"); lv != nil {
			out = append(out, lv.Items()...)
		}
		return out
	}
	if cv := n.v.Get("cases"); cv != nil {
		for _, c := range cv.Items() {
			if p := c.Get("port"); p != nil && p.Kind == vScalar {
				out = append(out, p)
			}
		}
	}
	if d := n.v.Get("default"); d != nil && d.Kind == vScalar && !d.IsNull() {
		out = append(out, d)
	}
	return out
}

// unwrapPathErr drops the path from an *os.PathError, which the message
// already names.
func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
