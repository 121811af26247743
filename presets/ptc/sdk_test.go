package ptc

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the output:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// schema parses a JSON Schema literal the way tool registrations arrive.
func schema(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// sampleTools covers every schema shape the renderers handle, plus names
// that need sanitising and descriptions that need escaping.
func sampleTools(t testing.TB) []ToolInfo {
	return []ToolInfo{
		{Name: "file_read", Description: "Read a text file inside the workspace.",
			Args:   schema(t, `{"type":"object","required":["path"],"properties":{"path":{"type":"string","description":"Path relative to the workspace."},"max_bytes":{"type":"integer","description":"Stop after this many bytes."}}}`),
			Output: schema(t, `{"type":"object","required":["content","truncated"],"properties":{"content":{"type":"string"},"truncated":{"type":"boolean"}}}`)},
		{Name: "db_query__sales", Description: "Run one read-only SQL statement against the sales table.\n\nReturns at most row_cap rows.",
			Args:   schema(t, `{"type":"object","required":["sql"],"properties":{"sql":{"type":"string"},"params":{"type":"object","additionalProperties":{"type":["string","number","null"]}}}}`),
			Output: schema(t, `{"type":"object","properties":{"columns":{"type":"array","items":{"type":"string"}},"rows":{"type":"array","items":{"type":"object","additionalProperties":true}},"truncated":{"type":"boolean"},"snapshot":{"type":"object","required":["id"],"properties":{"id":{"type":"string","description":"Q1, Q2, …"},"hash":{"type":"string"}}}}}`)},
		{Name: "http-fetch", Description: "Fetch a public URL. */ is escaped; so is \"\"\" and a trailing quote\"",
			Args:   schema(t, `{"type":"object","required":["url"],"properties":{"url":{"type":"string","format":"uri"},"method":{"enum":["GET","HEAD"]},"class":{"const":1},"x-mode":{"type":"string"}}}`),
			Output: schema(t, `{"anyOf":[{"type":"object","properties":{"status":{"type":"integer"},"body":{"type":"string"}}},{"type":"null"}]}`)},
		{Name: "file_list", Description: "",
			Args:   nil,
			Output: schema(t, `{"type":"array","items":{"type":"string"}}`)},
		{Name: "weird", Description: "Shapes the SDK does not model become unknown / Any.",
			Args:   schema(t, `{"type":"object","properties":{"ref":{"$ref":"#/defs/x"},"all":{"allOf":[{"type":"string"}]},"tuple":{"type":"array","items":[{"type":"string"}]},"mixed":{"enum":[1,"a",true,null,2.5]},"nested":{"type":"array","items":{"type":"array","items":{"type":["integer","string"]}}},"free":{},"type":{"type":"string","description":"A soft keyword is a valid field name."}}}`),
			Output: schema(t, `{"not":{"type":"string"}}`)},
		{Name: "2fast", Description: "A name that starts with a digit.", Args: schema(t, `{"type":"object","properties":{}}`), Output: schema(t, `{"type":"string"}`)},
		{Name: "class", Description: "A reserved word as a tool name."},
	}
}

func TestRenderSDKGolden(t *testing.T) {
	for _, lang := range []string{LangTypeScript, LangPython} {
		ext := map[string]string{LangTypeScript: "ts", LangPython: "py"}[lang]
		golden(t, "sdk."+ext+".golden", []byte(RenderSDK(sampleTools(t), lang)))
		golden(t, "sdk_empty."+ext+".golden", []byte(RenderSDK(nil, lang)))
	}
}

// The same tool set in any registration order renders byte-identically.
func TestRenderSDKShuffledStable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, lang := range []string{LangTypeScript, LangPython} {
		tools := sampleTools(t)
		// A duplicate name with a different description must still order stably.
		tools = append(tools, ToolInfo{Name: "file_read", Description: "A second registration."})
		want := RenderSDK(tools, lang)
		for range 50 {
			fresh := sampleTools(t)
			fresh = append(fresh, ToolInfo{Name: "file_read", Description: "A second registration."})
			r.Shuffle(len(fresh), func(i, j int) { fresh[i], fresh[j] = fresh[j], fresh[i] })
			if got := RenderSDK(fresh, lang); got != want {
				t.Fatalf("%s: output depends on registration order", lang)
			}
		}
	}
}

func TestRenderSDKOrderAndContract(t *testing.T) {
	for _, tt := range []struct {
		lang, decl string
		contract   []string
	}{
		{LangTypeScript, "export declare function ", []string{"ToolCallError", "concurrently", "Promise.all", "returns or prints"}},
		{LangPython, "async def ", []string{"ToolCallError", "concurrently", "asyncio.gather", "returns or prints"}},
	} {
		out := RenderSDK(sampleTools(t), tt.lang)
		for _, c := range tt.contract {
			if !strings.Contains(out, c) {
				t.Errorf("%s: contract lacks %q", tt.lang, c)
			}
		}
		var order []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, tt.decl) {
				order = append(order, strings.SplitN(strings.TrimPrefix(l, tt.decl), "(", 2)[0])
			}
		}
		want := []string{"_2fast", "class_", "db_query__sales", "file_list", "file_read", "http_fetch", "weird"}
		if strings.Join(order, ",") != strings.Join(want, ",") {
			t.Errorf("%s: functions %v, want %v (sorted by tool name)", tt.lang, order, want)
		}
	}
}

func TestSchemaMapping(t *testing.T) {
	tests := []struct{ schema, ts, py string }{
		{`{"type":"string"}`, "string", "str"},
		{`{"type":"integer"}`, "number", "int"},
		{`{"type":"number"}`, "number", "float"},
		{`{"type":"boolean"}`, "boolean", "bool"},
		{`{"type":"null"}`, "null", "None"},
		{`{"type":["string","null"]}`, "string | null", "str | None"},
		{`{"type":"array","items":{"type":"integer"}}`, "number[]", "list[int]"},
		{`{"type":"array"}`, "unknown[]", "list[Any]"},
		{`{"type":"array","items":{"type":["string","integer"]}}`, "(string | number)[]", "list[str | int]"},
		{`{"type":"object"}`, "Record<string, unknown>", "dict[str, Any]"},
		{`{"type":"object","additionalProperties":{"type":"number"}}`, "Record<string, number>", "dict[str, float]"},
		{`{"enum":["a","b"]}`, `"a" | "b"`, `Literal["a", "b"]`},
		{`{"enum":[1.5]}`, `1.5`, `Any`},
		{`{"const":true}`, `true`, `Literal[True]`},
		{`{"oneOf":[{"type":"string"},{"$ref":"#/x"}]}`, "unknown", "Any"},
		{`{"$ref":"#/x"}`, "unknown", "Any"},
		{`{"allOf":[{"type":"string"}]}`, "unknown", "Any"},
		{`{"type":"frobnicate"}`, "unknown", "Any"},
		{`{"type":7}`, "unknown", "Any"},
		{`{}`, "unknown", "Any"},
	}
	for _, tt := range tests {
		st := fromSchema(schema(t, tt.schema), 0)
		if got := newTS().typ(st, ""); got != tt.ts {
			t.Errorf("%s: typescript %q, want %q", tt.schema, got, tt.ts)
		}
		if got := newPy().typ(st, "X"); got != tt.py {
			t.Errorf("%s: python %q, want %q", tt.schema, got, tt.py)
		}
	}
}

// Deep or self-similar schemas never fail or hang; past the depth limit
// they render as unknown.
func TestSchemaDepthLimit(t *testing.T) {
	var s any = map[string]any{"type": "string"}
	for range 200 {
		s = map[string]any{"type": "array", "items": s}
	}
	out := RenderSDK([]ToolInfo{{Name: "deep", Output: s.(map[string]any)}}, LangTypeScript)
	if !strings.Contains(out, "unknown") {
		t.Fatal("depth limit not applied")
	}
}
