package presets

import (
	"sort"

	"github.com/agentlab/agentlab/plan"
)

// Agent is what a resolved preset means for one agent: the enabled rows
// collapsed into typed settings. It is the one place that interprets rows,
// so the engine never reads row configs by hand.
type Agent struct {
	PersonaPrefix   string
	PersonaComplete bool     // the prefix is the whole system prompt
	Presentation    string   // native|ptc|both
	SDKLanguage     string   // python|typescript
	MaxParallel     int      // concurrent sub-calls of a code-mode program
	Tools           []string // enabled built-in tools, sorted
	MaxSteps        int
	RepeatCall      string // reuse_result|stop
	NoProgressSteps int
	MaxTokens       int     // 0: no token budget
	MaxCostUSD      float64 // 0: no cost budget
	WrapUpAt        float64
	Sandbox         string // auto|bwrap|process
	SandboxTimeoutS float64
	SandboxMemoryMB int
	SandboxOutput   int
	CompressAt      float64 // 0: compaction off
	KeepRecent      int
}

// Defaults used for whatever the rows leave out; they equal the standard
// preset, so a preset without a row behaves like standard.
var defaultAgent = Agent{
	Presentation: PresentNative, SDKLanguage: "python", MaxParallel: 10,
	MaxSteps: 100, RepeatCall: "reuse_result", NoProgressSteps: 3,
	WrapUpAt: 0.85, Sandbox: "auto", SandboxTimeoutS: 30, SandboxMemoryMB: 512,
	SandboxOutput: 1 << 20,
}

// Effective collapses rows into Agent settings. Disabled rows are ignored;
// when rows overlap (which a linted preset never has) the later one wins.
func Effective(rows []plan.PresetRow) Agent {
	a := defaultAgent
	str := func(c map[string]any, k string, dst *string) {
		if v, ok := c[k].(string); ok {
			*dst = v
		}
	}
	num := func(c map[string]any, k string, dst *float64) {
		if v, ok := c[k].(float64); ok {
			*dst = v
		}
	}
	integer := func(c map[string]any, k string, dst *int) {
		if v, ok := c[k].(float64); ok {
			*dst = int(v)
		}
	}
	tools := map[string]bool{}
	for _, r := range rows {
		if r.Disabled {
			continue
		}
		c := r.Config
		switch r.Use {
		case UsePersona:
			str(c, "prefix", &a.PersonaPrefix)
			a.PersonaComplete, _ = c["complete"].(bool)
		case UsePresentation:
			str(c, "mode", &a.Presentation)
			str(c, "sdk_language", &a.SDKLanguage)
			integer(c, "max_parallel_calls", &a.MaxParallel)
		case UseTool:
			if n, ok := c["name"].(string); ok {
				tools[n] = true
			}
		case UseGuardrail:
			integer(c, "max_steps", &a.MaxSteps)
			str(c, "repeat_call", &a.RepeatCall)
			integer(c, "no_progress_steps", &a.NoProgressSteps)
			integer(c, "max_tokens", &a.MaxTokens)
			num(c, "max_cost_usd", &a.MaxCostUSD)
			num(c, "wrap_up_at", &a.WrapUpAt)
		case UseSandbox:
			str(c, "backend", &a.Sandbox)
			num(c, "timeout_s", &a.SandboxTimeoutS)
			integer(c, "memory_mb", &a.SandboxMemoryMB)
			integer(c, "output_bytes", &a.SandboxOutput)
		case UseCompaction:
			num(c, "compress_at", &a.CompressAt)
			integer(c, "keep_recent", &a.KeepRecent)
		}
	}
	for n := range tools {
		a.Tools = append(a.Tools, n)
	}
	sort.Strings(a.Tools)
	return a
}
