package ptc

import (
	"strings"
	"testing"
)

// TestParseFileConfigEditedAsText edits the [ptc] table by hand: a ptc key
// that is not a table is an error naming the file, and a fractional
// rollout percentage keeps every digit.
func TestParseFileConfigEditedAsText(t *testing.T) {
	if f, err := ParseFileConfig("agentlab.toml", []byte("ptc = 3\n")); err == nil || !strings.Contains(err.Error(), "agentlab.toml: ptc must be a table") {
		t.Errorf("ptc = 3: %+v, %v", f, err)
	}
	f, err := ParseFileConfig("agentlab.toml", []byte("[ptc]\nrollout_percent = 12.5\n"))
	if err != nil || f == nil || f.RolloutPercent != "12.5" {
		t.Fatalf("rollout_percent = 12.5: %+v, %v", f, err)
	}
	cfg, warns := ConfigFromEnv(func(string) string { return "" }, f)
	if cfg.RolloutPercent != 12.5 || len(warns) != 0 {
		t.Errorf("rollout 12.5 read as %v, %v", cfg.RolloutPercent, warns)
	}
}

// TestSchemaMappingEdges maps the schemas a tool server could send that
// sit on an edge of the renderer: an object with exactly one property, an
// integer enum of two digits, a description ending in a quote.
func TestSchemaMappingEdges(t *testing.T) {
	for _, tt := range []struct{ schema, ts, py string }{
		{`{"enum":[12, 345]}`, `12 | 345`, `Literal[12, 345]`},
	} {
		st := fromSchema(schema(t, tt.schema), 0)
		if got := newTS().typ(st, ""); got != tt.ts {
			t.Errorf("%s: typescript %q, want %q", tt.schema, got, tt.ts)
		}
		if got := newPy().typ(st, "X"); got != tt.py {
			t.Errorf("%s: python %q, want %q", tt.schema, got, tt.py)
		}
	}
	one := ToolInfo{Name: "lookup", Description: `Find "things"`,
		Args:   schema(t, `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Output: schema(t, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}
	ts := RenderSDK([]ToolInfo{one}, LangTypeScript)
	if !strings.Contains(ts, "name: string") || !strings.Contains(ts, "id: string") {
		t.Errorf("typescript drops the single property:\n%s", ts)
	}
	py := RenderSDK([]ToolInfo{one}, LangPython)
	if !strings.Contains(py, `Find "things\""`) {
		t.Errorf("python docstring does not escape the closing quote:\n%s", py)
	}
}
