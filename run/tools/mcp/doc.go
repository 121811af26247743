// Package mcp exposes the tools of Model Context Protocol servers that
// speak over stdio as agentlab tools.
//
// Servers are declared by the operator in agentlab.toml
// ([[mcp.servers]]); LoadConfig reads them with positioned diagnostics.
// Start launches one server and performs the initialize handshake and a
// tools/list through the official Go SDK (github.com/modelcontextprotocol/go-sdk),
// whose client speaks over pipes that this package owns: the package, not
// the SDK, starts, watches and kills the process, because it must know
// when the server exits (to name the exit status and the end of its
// stderr in the error) and must kill the server's whole process group,
// not only the process it started (npx, uvx and shell wrappers leave
// children behind).
//
// Each tool of a server becomes a tools.Tool named mcp__<server>__<tool>,
// with the server's description and JSON Schema. Its effect is "depends":
// a call is a read only when the server annotates the tool readOnlyHint,
// otherwise it is a write (agents may then not call it; a `tool` node
// may). Every MCP tool is asked for by default (approval mode "ask"),
// whatever the server claims; a server entry may say approval = "gated"
// or "always" for all of its tools.
//
// The server process starts with an emptied environment: a default PATH
// plus the variables the entry declares (env) or names (pass_env).
// Nothing else of agentlab's environment — API keys, tokens, HOME —
// reaches it. It runs in a session and process group of its own, with
// no controlling terminal, and is killed with its group when Close is
// called or the context given to Start ends.
//
// Where it fits: docs/architecture.md#running.
package mcp
