package ptc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/agentlab/agentlab/presets/ptc"
)

// ToolName is the one tool code mode offers the model.
const ToolName = "run_code"

// Decl is the run_code declaration the model is shown: its description
// carries the whole SDK text, so every provider (remote ones included)
// sees the SDK where it sees the tool.
type Decl struct {
	Name        string
	Description string
	Schema      map[string]any
}

// SDKMarker starts every SDK text; a provider can find the SDK in the
// run_code description by it.
const SDKMarker = "agentlab tool SDK (generated; do not edit)."

// Tool returns the run_code declaration and the SDK text for tools.
// sdkLang is the preset's presentation.sdk_language (python or
// typescript); a TypeScript SDK means JavaScript programs.
func Tool(tools []sdk.ToolInfo, sdkLang string) (Decl, string) {
	if sdkLang != sdk.LangTypeScript {
		sdkLang = sdk.LangPython
	}
	text := sdk.RenderSDK(tools, sdkLang)
	var intro string
	// What the program cannot count on, said before the SDK so that the
	// model does not reach for keys, files or the network it will not find.
	const sandboxed = "The program runs sandboxed with an empty environment: only PATH, TEMP, TMP and " + sdk.SandboxDebugEnv +
		" are set (no API keys, no HOME), in an empty working directory of its own; do not count on network access: get data only through the tools. "
	if sdkLang == sdk.LangTypeScript {
		intro = "Run a JavaScript program (Node.js, no type annotations) that calls the tools below as async functions and returns or prints its result. " +
			"The program is the body of an async function: use await, and `return` a JSON value. " + sandboxed + "The SDK:\n\n"
	} else {
		intro = "Run a Python 3 program that calls the tools below as async functions and returns or prints its result. " +
			"The program is the body of an async function: use await, and `return` a JSON value; asyncio and json are already imported. " + sandboxed + "The SDK:\n\n"
	}
	return Decl{
		Name:        ToolName,
		Description: intro + text,
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"code": map[string]any{"type": "string", "description": "The program: the body of an async function that calls the SDK's tool functions."},
			},
			"required":             []any{"code"},
			"additionalProperties": false,
		},
	}, text
}

// ParseArgs reads the arguments of a run_code call: {"code": "..."}.
// The error says how to correct the call.
func ParseArgs(args json.RawMessage) (string, error) {
	var a struct {
		Code *string `json:"code"`
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", fmt.Errorf(`run_code takes {"code": "<program>"}: %v`, err)
	}
	if a.Code == nil || strings.TrimSpace(*a.Code) == "" {
		return "", fmt.Errorf(`run_code needs a non-empty "code": the program to run`)
	}
	return *a.Code, nil
}
