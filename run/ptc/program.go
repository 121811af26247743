package ptc

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"

	sdk "github.com/agentlab/agentlab/presets/ptc"
)

// The preludes are the program side of the protocol. Each defines
// ToolCallError, the tool functions (from a table of SDK function
// identifier → tool name) and a main function that runs the program as
// the body of an async function.
var (
	//go:embed prelude/prelude.py
	preludePython string
	//go:embed prelude/prelude.js
	preludeJS string
)

// Prelude returns the runtime prelude of a language (python or
// javascript), as it is put in front of every program.
func Prelude(lang string) string {
	if RuntimeLanguage(lang) == LangJavaScript {
		return preludeJS
	}
	return preludePython
}

// Source is the complete file the interpreter runs: the prelude, then a
// call of its main function with the tool bindings and the program. The
// bindings pair each function identifier of the SDK that ptc.RenderSDK
// shows the model (sdk.SDKFunctions, the same renaming rules) with its
// tool name. Both travel base64-encoded, so no program text and no tool
// name can break out of the literal; the Python prelude compiles the
// program with its own line numbers.
func Source(lang, program string, tools []sdk.ToolInfo) string {
	sdkLang := sdk.LangPython
	if RuntimeLanguage(lang) == LangJavaScript {
		sdkLang = sdk.LangTypeScript
	}
	var pairs [][2]string
	for _, f := range sdk.SDKFunctions(tools, sdkLang) {
		pairs = append(pairs, [2]string{f.Func, f.Tool})
	}
	if pairs == nil {
		pairs = [][2]string{}
	}
	b, _ := json.Marshal(pairs) // strings only: cannot fail
	bindings := base64.StdEncoding.EncodeToString(b)
	prog := base64.StdEncoding.EncodeToString([]byte(program))
	if RuntimeLanguage(lang) == LangJavaScript {
		return preludeJS + "\n__agentlab.main(\"" + bindings + "\", \"" + prog + "\");\n"
	}
	return preludePython + "\n\n_agentlab_main(\"" + bindings + "\", \"" + prog + "\")\n"
}
