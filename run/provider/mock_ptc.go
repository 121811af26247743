package provider

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// RunCodeTool is the name of the code-mode tool.
const RunCodeTool = "run_code"

// sdkMarker opens every SDK text (presets/ptc), in both languages.
const sdkMarker = "agentlab tool SDK (generated; do not edit)."

// sdkFunc is one tool function of an SDK text, as the mock reads it.
type sdkFunc struct {
	fn, tool string
	args     map[string]string // required argument → its type, as written
}

var (
	pyFuncRe   = lazyre.New(`(?m)^async def ([A-Za-z_][A-Za-z0-9_]*)\(args: ([A-Za-z_][A-Za-z0-9_]*)\)`)
	tsFuncRe   = lazyre.New(`(?m)^export declare function ([A-Za-z_][A-Za-z0-9_]*)\(args: ([A-Za-z_][A-Za-z0-9_]*)\)`)
	toolNameRe = lazyre.New(`Tool name: "([^"]+)"\.`)
	pyFieldRe  = lazyre.New(`^    ([A-Za-z_][A-Za-z0-9_]*): (.+)$`)
	tsFieldRe  = lazyre.New(`^  ([A-Za-z_$][A-Za-z0-9_$]*): (.+);$`)
)

// requestSDK returns the SDK text of a code-mode request: Request.SDK, or
// the text the run_code declaration carries in its description. ok is
// false unless run_code is the only tool offered.
func requestSDK(req Request) (string, bool) {
	if len(req.Tools) != 1 || req.Tools[0].Name != RunCodeTool {
		return "", false
	}
	if req.SDK != "" {
		return req.SDK, true
	}
	d := req.Tools[0].Description
	if i := strings.Index(d, sdkMarker); i >= 0 {
		// The marker follows the comment opener ("# " or "// ").
		start := strings.LastIndex(d[:i], "\n") + 1
		return d[start:], true
	}
	return "", false
}

// parseSDK reads the tool functions of an SDK text with their required
// arguments, in the order the SDK lists them (sorted by tool name).
func parseSDK(text string) (funcs []sdkFunc, ts bool) {
	ts = !strings.Contains(text, "\nasync def ") && strings.Contains(text, "export declare function ")
	re := pyFuncRe
	if ts {
		re = tsFuncRe
	}
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		f := sdkFunc{fn: text[m[2]:m[3]], tool: text[m[2]:m[3]]}
		argsType := text[m[4]:m[5]]
		// The declaration's doc comment (before it in TypeScript, after it
		// in Python) names a tool whose name was rewritten.
		var doc string
		if ts {
			pre := strings.TrimRight(text[:m[0]], "\n ")
			if strings.HasSuffix(pre, "*/") {
				doc = pre[max(strings.LastIndex(pre, "/**"), 0):]
			}
		} else if end := strings.Index(text[m[1]:], "\n    ...\n"); end >= 0 {
			doc = text[m[1] : m[1]+end]
		}
		if n := toolNameRe.FindStringSubmatch(doc); n != nil {
			f.tool = n[1]
		}
		f.args = requiredFields(text, argsType, ts)
		funcs = append(funcs, f)
	}
	return funcs, ts
}

// requiredFields reads the required keys of an argument type declared as
// a TypedDict class (Python) or an interface (TypeScript).
func requiredFields(text, typ string, ts bool) map[string]string {
	head := "class " + typ + "(TypedDict):\n"
	fieldRe := pyFieldRe
	if ts {
		head = "export interface " + typ + " {\n"
		fieldRe = tsFieldRe
	}
	i := strings.Index(text, head)
	if i < 0 {
		return nil
	}
	out := map[string]string{}
	inDoc := false // inside a multi-line docstring, whose lines are not fields
	for _, l := range strings.Split(text[i+len(head):], "\n") {
		if l == "" || l == "}" || (!strings.HasPrefix(l, "  ")) {
			break
		}
		if t := strings.TrimSpace(l); !ts {
			if inDoc {
				inDoc = !strings.HasSuffix(t, `"""`)
				continue
			}
			if strings.HasPrefix(t, `"""`) {
				inDoc = len(t) < 6 || !strings.HasSuffix(t, `"""`)
				continue
			}
		}
		m := fieldRe.FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(m[2], "NotRequired[") {
			continue
		}
		out[m[1]] = m[2]
	}
	return out
}

// ptcToolCall writes the mock's code-mode call: when run_code is the only
// tool and the request carries the SDK, a short program that calls two
// of the SDK's tools one after the other (db_query tools first, the ones
// whose names the question mentions before others), catches a
// ToolCallError per call, and prints one JSON object with what each call
// returned. The calls are sequential so that sub-call ids, events and
// snapshot numbers are the same on every run.
func ptcToolCall(r *rng, req Request) (ToolCall, bool) {
	text, ok := requestSDK(req)
	if !ok {
		return ToolCall{}, false
	}
	funcs, ts := parseSDK(text)
	question := lastUser(req.Messages)
	picked := pickFuncs(funcs, question, 2)
	var code string
	if ts {
		code = jsProgram(picked, question)
	} else {
		code = pyProgram(picked, question)
	}
	args, _ := json.Marshal(map[string]string{"code": code})
	return ToolCall{ID: "call_" + r.hex(16), Name: RunCodeTool, Args: args}, true
}

// pickFuncs chooses up to n functions, ranked as chooseTool ranks tools.
func pickFuncs(funcs []sdkFunc, question string, n int) []sdkFunc {
	rest := append([]sdkFunc(nil), funcs...)
	var out []sdkFunc
	for len(out) < n && len(rest) > 0 {
		decls := make([]ToolDecl, len(rest))
		for i, f := range rest {
			decls[i] = ToolDecl{Name: f.tool}
		}
		best := chooseTool(decls, question)
		for i, f := range rest {
			if f.tool == best.Name {
				out = append(out, f)
				rest = append(rest[:i], rest[i+1:]...)
				break
			}
		}
	}
	return out
}

// mockArgs fills a function's required arguments: the sample query of a
// db_query tool, the question for text, small fixed values otherwise.
func mockArgs(f sdkFunc, question string) []argValue {
	isDB := strings.HasPrefix(f.tool, DBToolPrefix)
	names := make([]string, 0, len(f.args))
	for k := range f.args {
		names = append(names, k)
	}
	slices.Sort(names)
	if isDB && len(names) == 0 {
		names = []string{"sql"}
	}
	var out []argValue
	for _, k := range names {
		typ := f.args[k]
		switch {
		case isDB && (k == "sql" || k == "query" || k == "statement"):
			out = append(out, argValue{k, sampleSQL(f.tool)})
		case typ == "str" || typ == "string":
			v := truncateRunes(question, 200)
			if v == "" {
				v = "example"
			}
			out = append(out, argValue{k, v})
		case typ == "int" || typ == "float" || typ == "number":
			out = append(out, argValue{k, 1})
		case typ == "bool" || typ == "boolean":
			out = append(out, argValue{k, false})
		case strings.HasPrefix(typ, "list[") || strings.HasSuffix(typ, "[]"):
			out = append(out, argValue{k, []any{}})
		}
	}
	return out
}

type argValue struct {
	name  string
	value any
}

// pyProgram writes the Python program.
func pyProgram(funcs []sdkFunc, question string) string {
	var b strings.Builder
	b.WriteString("# Call the tools one after the other; a failed call is recorded, not fatal.\nresults = {}\n")
	for _, f := range funcs {
		b.WriteString("try:\n    results[" + strconv.Quote(f.tool) + "] = await " + f.fn + "({")
		for i, a := range mockArgs(f, question) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(a.name) + ": " + pyValue(a.value))
		}
		b.WriteString("})\nexcept ToolCallError as e:\n    results[" + strconv.Quote(f.tool) + "] = {\"error\": e.message}\n")
	}
	b.WriteString("print(json.dumps(results))\n")
	return b.String()
}

// jsProgram writes the JavaScript program.
func jsProgram(funcs []sdkFunc, question string) string {
	var b strings.Builder
	b.WriteString("// Call the tools one after the other; a failed call is recorded, not fatal.\nconst results = {};\n")
	for _, f := range funcs {
		name, _ := json.Marshal(f.tool)
		args := map[string]any{}
		for _, a := range mockArgs(f, question) {
			args[a.name] = a.value
		}
		lit, _ := json.Marshal(args)
		b.WriteString("try {\n  results[" + string(name) + "] = await " + f.fn + "(" + string(lit) + ");\n} catch (e) {\n" +
			"  if (!(e instanceof ToolCallError)) throw e;\n  results[" + string(name) + "] = {error: e.message};\n}\n")
	}
	b.WriteString("console.log(JSON.stringify(results));\n")
	return b.String()
}

// pyValue writes a Python literal for the values mockArgs produces.
// strconv.Quote's escapes (\n, \x1b, \u00a0, \U0001f600) are Python's too.
func pyValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int:
		return strconv.Itoa(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case []any:
		return "[]"
	}
	return "None"
}
