package ptc

// SDKFunction pairs a tool with the function identifier the SDK text
// declares for it.
type SDKFunction struct {
	Tool string // the tool's name, as the registry knows it
	Func string // the identifier in the SDK (rewritten when Tool is not one)
}

// SDKFunctions returns the function identifiers RenderSDK declares for
// tools in lang, in the same order (sorted by tool name). The code-mode
// runtime defines these functions, so a program written against the
// rendered SDK calls exactly the tools it names, with no second copy of
// the renaming rules that could drift.
func SDKFunctions(tools []ToolInfo, lang string) []SDKFunction {
	reserved := pyReserved
	if lang == LangTypeScript {
		reserved = tsReserved
	}
	var funcs names
	sorted := sortTools(tools)
	out := make([]SDKFunction, len(sorted))
	for i, t := range sorted {
		out[i] = SDKFunction{Tool: t.Name, Func: funcs.unique(identifier(t.Name, reserved))}
	}
	return out
}
