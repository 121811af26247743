package provider

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/agentlab/agentlab/presets/ptc"
)

// ptcTools are the tools folded into run_code in these tests.
var ptcTools = []sdk.ToolInfo{
	{Name: "db_query__sales", Description: "Query the sales table.", Args: map[string]any{"type": "object", "required": []any{"sql"},
		"properties": map[string]any{"sql": map[string]any{"type": "string"}, "params": map[string]any{"type": "object"}}}},
	{Name: "db_query__stock", Description: "Query the stock table.", Args: map[string]any{"type": "object", "required": []any{"sql"},
		"properties": map[string]any{"sql": map[string]any{"type": "string"}}}},
	{Name: "file_read", Description: "Read a file.\nSecond line of the description.", Args: map[string]any{"type": "object", "required": []any{"path"},
		"properties": map[string]any{"path": map[string]any{"type": "string", "description": "Relative path.\nmax_bytes: not a field"}, "max_bytes": map[string]any{"type": "integer"}}}},
}

func ptcRequest(sdkText string, question string) Request {
	return Request{Node: "agent", Kind: KindAgent, Messages: userMsg(question), SDK: sdkText,
		Tools: []ToolDecl{{Name: RunCodeTool, Description: "Run a program.", Schema: map[string]any{"type": "object"}}}}
}

func runCodeOf(t *testing.T, resp Response) string {
	t.Helper()
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != RunCodeTool {
		t.Fatalf("want one run_code call, got %+v", resp)
	}
	var a struct{ Code string }
	if err := json.Unmarshal(resp.ToolCalls[0].Args, &a); err != nil || a.Code == "" {
		t.Fatalf("run_code args %s: %v", resp.ToolCalls[0].Args, err)
	}
	return a.Code
}

func TestMockWritesPTCProgram(t *testing.T) {
	m := NewMock(Options{Seed: 1})
	for _, lang := range []string{sdk.LangPython, sdk.LangTypeScript} {
		t.Run(lang, func(t *testing.T) {
			text := sdk.RenderSDK(ptcTools, lang)
			resp, _ := complete(t, m, ptcRequest(text, "How much stock is left?"))
			code := runCodeOf(t, resp)
			// The question names stock: db_query__stock first, then sales.
			iStock := strings.Index(code, "await db_query__stock(")
			iSales := strings.Index(code, "await db_query__sales(")
			if iStock < 0 || iSales < 0 || iStock > iSales || strings.Contains(code, "file_read(") {
				t.Errorf("program does not call stock then sales:\n%s", code)
			}
			for _, want := range []string{`"sql": "SELECT * FROM stock LIMIT 5"`, "ToolCallError"} {
				if lang == sdk.LangTypeScript {
					want = strings.ReplaceAll(want, `": "`, `":"`)
				}
				if !strings.Contains(code, want) {
					t.Errorf("program lacks %q:\n%s", want, code)
				}
			}
			// Deterministic, and the SDK may also come in the description.
			again, _ := complete(t, m, ptcRequest(text, "How much stock is left?"))
			if runCodeOf(t, again) != code {
				t.Error("the same request gave a different program")
			}
			req := ptcRequest("", "How much stock is left?")
			req.Tools[0].Description = "Run a program. The SDK:\n\n" + text
			viaDesc, _ := complete(t, m, req)
			if runCodeOf(t, viaDesc) != code {
				t.Errorf("SDK in the description gave a different program:\n%s", runCodeOf(t, viaDesc))
			}
		})
	}
}

func TestMockPTCArgumentsAndNames(t *testing.T) {
	tools := []sdk.ToolInfo{
		ptcTools[2],
		{Name: "http-fetch", Description: "Fetch a URL.", Args: map[string]any{"type": "object", "required": []any{"url", "retries"},
			"properties": map[string]any{"url": map[string]any{"type": "string"}, "retries": map[string]any{"type": "integer"}}}},
	}
	m := NewMock(Options{})
	for _, lang := range []string{sdk.LangPython, sdk.LangTypeScript} {
		resp, _ := complete(t, m, ptcRequest(sdk.RenderSDK(tools, lang), "Read the README"))
		code := runCodeOf(t, resp)
		wants := []string{`await file_read({"path": "Read the README"})`, `await http_fetch({"retries": 1, "url": "Read the README"})`, `results["http-fetch"]`}
		if lang == sdk.LangTypeScript {
			wants = []string{`await file_read({"path":"Read the README"})`, `await http_fetch({"retries":1,"url":"Read the README"})`, `results["http-fetch"]`}
		}
		for _, w := range wants {
			if !strings.Contains(code, w) {
				t.Errorf("%s: program lacks %q:\n%s", lang, w, code)
			}
		}
	}
}

func TestMockPTCOnlyWhenRunCodeAlone(t *testing.T) {
	m := NewMock(Options{})
	text := sdk.RenderSDK(ptcTools, sdk.LangPython)
	req := ptcRequest(text, "q")
	req.Tools = append(req.Tools, ToolDecl{Name: "db_query__sales", Schema: map[string]any{"type": "object"}})
	resp, _ := complete(t, m, req)
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "db_query__sales" {
		t.Errorf("with other tools offered the mock must call one natively: %+v", resp.ToolCalls)
	}
	// run_code without any SDK: a plain call generated from its schema.
	req = ptcRequest("", "q")
	resp, _ = complete(t, m, req)
	if len(resp.ToolCalls) != 1 || strings.Contains(string(resp.ToolCalls[0].Args), "await") {
		t.Errorf("without an SDK the mock has nothing to program against: %+v", resp.ToolCalls)
	}
	// After the run_code result the mock answers.
	req = ptcRequest(text, "q")
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: RunCodeTool}}},
		Message{Role: RoleTool, ToolCallID: "c1", Content: `{"ok":true}`})
	resp, _ = complete(t, m, req)
	if len(resp.ToolCalls) != 0 || resp.Text == "" {
		t.Errorf("after the result the mock must answer: %+v", resp)
	}
}

func TestMockPTCEmptySDK(t *testing.T) {
	for _, lang := range []string{sdk.LangPython, sdk.LangTypeScript} {
		resp, _ := complete(t, NewMock(Options{}), ptcRequest(sdk.RenderSDK(nil, lang), "q"))
		code := runCodeOf(t, resp)
		if strings.Contains(code, "await") {
			t.Errorf("%s: no tools, yet the program calls one:\n%s", lang, code)
		}
	}
}

// FuzzParseSDK feeds the mock's SDK reader arbitrary text: it must never
// panic, and every function it finds must be an identifier.
func FuzzParseSDK(f *testing.F) {
	f.Add(sdk.RenderSDK(ptcTools, sdk.LangPython))
	f.Add(sdk.RenderSDK(ptcTools, sdk.LangTypeScript))
	f.Add("async def f(args: A) -> B:\n    \"\"\"\n    x: int\n")
	f.Add("/** Tool name: \"a-b\". */\nexport declare function a_b(args: X): Promise<Y>;\nexport interface X {\n  k: string;\n")
	f.Fuzz(func(t *testing.T, text string) {
		funcs, _ := parseSDK(text)
		for _, fn := range funcs {
			if !plainIdent.MatchString(fn.fn) || fn.tool == "" {
				t.Fatalf("bad function %+v", fn)
			}
		}
		_ = pyProgram(funcs, text)
		_ = jsProgram(funcs, text)
	})
}
