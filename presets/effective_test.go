package presets

import (
	"reflect"
	"testing"
)

func TestEffective(t *testing.T) {
	tests := []struct {
		name string
		want Agent
	}{
		{"standard", Agent{
			PersonaPrefix: "You are a careful analyst. Use the tools to get facts; never invent numbers. When you cannot find something, say so.",
			Presentation:  "native", SDKLanguage: "python", MaxParallel: 10,
			Tools:    []string{"db_query", "file_grep", "file_list", "file_read"},
			MaxSteps: 100, RepeatCall: "reuse_result", NoProgressSteps: 3, MaxTokens: 2000000, WrapUpAt: 0.85,
			Sandbox: "auto", SandboxTimeoutS: 30, SandboxMemoryMB: 512, SandboxOutput: 1048576,
			CompressAt: 0.6, KeepRecent: 4,
		}},
		{"minimal", Agent{
			PersonaPrefix: "Answer from the query results only. Never invent numbers.",
			Presentation:  "native", SDKLanguage: "python", MaxParallel: 10,
			Tools:    []string{"db_query"},
			MaxSteps: 20, RepeatCall: "stop", NoProgressSteps: 3, MaxTokens: 50000, MaxCostUSD: 0.5, WrapUpAt: 0.85,
			Sandbox: "process", SandboxTimeoutS: 10, SandboxMemoryMB: 256, SandboxOutput: 262144,
		}},
	}
	for _, tt := range tests {
		info, _ := Builtin(tt.name)
		if got := Effective(info.Rows); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
	ptc, _ := Builtin("ptc")
	if a := Effective(ptc.Rows); a.Presentation != "ptc" || !reflect.DeepEqual(a.Tools, []string{"db_query", "file_list", "file_read", "run_code"}) {
		t.Errorf("ptc: %+v", a)
	}
	if a := Effective(nil); !reflect.DeepEqual(a, defaultAgent) {
		t.Errorf("no rows: %+v", a)
	}
}
