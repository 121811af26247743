// Package tools holds the tool registry and the built-in tools that agent
// and tool nodes call: workspace file tools behind a realpath jail, an
// HTTP fetcher behind an SSRF guard, and custom HTTP and command tools
// declared in a flow.
//
// Every tool describes itself (Info: name, description, JSON Schema of its
// arguments, declared effect). The registry validates arguments against
// that schema before a tool runs, and enforces the one rule about effects
// that the language makes: a tool that writes may be used by a `tool`
// node, never by an agent. ForAgent refuses such tools when an agent is
// built, and Call checks again for every call (tools whose effect depends
// on their arguments are judged per call).
//
// Permission checks (run/permission) are the caller's: the engine asks the
// permission checker before it calls Registry.Call.
//
// Where it fits: docs/architecture.md#running.
package tools
