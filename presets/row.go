package presets

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// Row kinds (the `use` of a row). Each kind has a fixed set of config keys,
// so a misspelt key is an error instead of a silently ignored setting.
const (
	UsePersona      = "persona"      // system prompt prefix
	UsePresentation = "presentation" // how tools are shown to the model
	UseTool         = "tool"         // one built-in tool, enabled or not
	UseGuardrail    = "guardrail"    // agent loop limits
	UseSandbox      = "sandbox"      // where code runs
	UseCompaction   = "compaction"   // context compaction
)

// BuiltinTools are the tools a tool row may name.
var BuiltinTools = []string{"db_query", "file_grep", "file_list", "file_read", "http_fetch", "run_code"}

// Presentation modes.
const (
	PresentNative = "native"
	PresentPTC    = "ptc"
	PresentBoth   = "both"
)

var idPattern = lazyre.New(`^[a-z][a-z0-9_.-]*$`)

type fieldKind int

const (
	kString fieldKind = iota
	kBool
	kInt
	kNumber
	kEnum
)

func (k fieldKind) String() string {
	switch k {
	case kString:
		return "a string"
	case kBool:
		return "true or false"
	case kInt:
		return "an integer"
	case kNumber:
		return "a number"
	}
	return "one of the listed values"
}

// field describes one config key of a row kind.
type field struct {
	kind     fieldKind
	enum     []string
	min, max float64 // inclusive bounds, checked for kInt and kNumber
	openMin  bool    // min is exclusive
	required bool
}

// useSpecs lists, for every row kind, the config keys it accepts.
var useSpecs = map[string]map[string]field{
	UsePersona: {
		"prefix":   {kind: kString, required: true},
		"complete": {kind: kBool},
	},
	UsePresentation: {
		"mode":               {kind: kEnum, enum: []string{PresentNative, PresentPTC, PresentBoth}, required: true},
		"sdk_language":       {kind: kEnum, enum: []string{"python", "typescript"}},
		"max_parallel_calls": {kind: kInt, min: 1, max: 64},
	},
	UseTool: {
		"name": {kind: kEnum, enum: BuiltinTools, required: true},
	},
	UseGuardrail: {
		"max_steps":         {kind: kInt, min: 1, max: 100000},
		"repeat_call":       {kind: kEnum, enum: []string{"reuse_result", "stop"}},
		"no_progress_steps": {kind: kInt, min: 1, max: 1000},
		"max_tokens":        {kind: kInt, min: 0, max: math.MaxInt32},
		"max_cost_usd":      {kind: kNumber, min: 0, max: 1e6},
		"wrap_up_at":        {kind: kNumber, min: 0, max: 1, openMin: true},
	},
	UseSandbox: {
		"backend":      {kind: kEnum, enum: []string{"auto", "bwrap", "process"}, required: true},
		"timeout_s":    {kind: kNumber, min: 0, max: 86400, openMin: true},
		"memory_mb":    {kind: kInt, min: 16, max: 1 << 20},
		"output_bytes": {kind: kInt, min: 1024, max: 1 << 30},
	},
	UseCompaction: {
		"compress_at": {kind: kNumber, min: 0, max: 1, openMin: true},
		"keep_recent": {kind: kInt, min: 0, max: 1000},
	},
}

// Uses returns the known row kinds, sorted.
func Uses() []string { return sortedKeys(useSpecs) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// posFunc returns the position of a config key (or of the config itself
// for key "").
type posFunc func(key string) diag.Pos

// validateConfig checks cfg against the keys of its row kind and appends a
// diagnostic for every problem found.
func validateConfig(file, rowID, use string, cfg map[string]any, at posFunc, ds *diag.List) {
	spec, ok := useSpecs[use]
	if !ok {
		return // the unknown use is reported where the row is read
	}
	for _, k := range sortedKeys(cfg) {
		f, ok := spec[k]
		if !ok {
			ds.Errorf(file, at(k), CodeUnknownKey, fixUnknown(k, sortedKeys(spec)),
				"row %q: config key %q is not known for use %q", rowID, k, use)
			continue
		}
		if msg := checkValue(f, cfg[k]); msg != "" {
			ds.Errorf(file, at(k), CodeConfig, fmt.Sprintf("set %s to %s", k, expectDesc(f)),
				"row %q: config %s %s", rowID, k, msg)
		}
	}
	for _, k := range sortedKeys(spec) {
		if _, ok := cfg[k]; spec[k].required && !ok {
			ds.Errorf(file, at(""), CodeConfig, fmt.Sprintf("add %s: <%s> to the config", k, expectDesc(spec[k])),
				"row %q: config of use %q needs %q", rowID, use, k)
		}
	}
}

func expectDesc(f field) string {
	switch f.kind {
	case kEnum:
		return strings.Join(f.enum, "|")
	case kInt, kNumber:
		lo := "≥"
		if f.openMin {
			lo = ">"
		}
		return fmt.Sprintf("%s %s %s and ≤ %s", f.kind, lo, fmtNum(f.min), fmtNum(f.max))
	}
	return f.kind.String()
}

func fmtNum(f float64) string { return fmt.Sprintf("%g", f) }

// checkValue returns "" when v fits f, else a phrase saying what is wrong.
func checkValue(f field, v any) string {
	switch f.kind {
	case kString:
		if _, ok := v.(string); !ok {
			return fmt.Sprintf("must be a string, found %s", describe(v))
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("must be true or false, found %s", describe(v))
		}
	case kEnum:
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be one of %s, found %s", strings.Join(f.enum, ", "), describe(v))
		}
		for _, e := range f.enum {
			if s == e {
				return ""
			}
		}
		msg := fmt.Sprintf("is %q, which is not one of %s", s, strings.Join(f.enum, ", "))
		if sug := suggest(s, f.enum); sug != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sug)
		}
		return msg
	case kInt, kNumber:
		n, ok := v.(float64)
		if !ok {
			return fmt.Sprintf("must be %s, found %s", f.kind, describe(v))
		}
		if f.kind == kInt && n != math.Trunc(n) {
			return fmt.Sprintf("must be an integer, found %s", fmtNum(n))
		}
		if n < f.min || (f.openMin && n == f.min) || n > f.max {
			return fmt.Sprintf("is %s, out of range", fmtNum(n))
		}
	}
	return ""
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case float64:
		return "the number " + fmtNum(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
