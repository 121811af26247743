package ptc

import (
	"strings"
	"testing"
)

// TestSDKFunctionsAgreeWithRender checks that every identifier
// SDKFunctions returns is the one RenderSDK declares, in both languages,
// including rewritten and duplicate names.
func TestSDKFunctionsAgreeWithRender(t *testing.T) {
	tools := []ToolInfo{
		{Name: "db_query__sales"}, {Name: "http-fetch"}, {Name: "class"},
		{Name: "2fast"}, {Name: "http_fetch"}, {Name: "await"},
	}
	for _, lang := range []string{LangPython, LangTypeScript} {
		text := RenderSDK(tools, lang)
		funcs := SDKFunctions(tools, lang)
		if len(funcs) != len(tools) {
			t.Fatalf("%s: %d functions for %d tools", lang, len(funcs), len(tools))
		}
		seen := map[string]bool{}
		for i, f := range funcs {
			if i > 0 && funcs[i-1].Tool > f.Tool {
				t.Errorf("%s: not sorted: %q before %q", lang, funcs[i-1].Tool, f.Tool)
			}
			if seen[f.Func] {
				t.Errorf("%s: identifier %q given twice", lang, f.Func)
			}
			seen[f.Func] = true
			decl := "async def " + f.Func + "(args: "
			if lang == LangTypeScript {
				decl = "export declare function " + f.Func + "(args: "
			}
			if !strings.Contains(text, decl) {
				t.Errorf("%s: SDK text does not declare %q for tool %q", lang, f.Func, f.Tool)
			}
		}
	}
}
