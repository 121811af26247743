package mcp

import (
	"fmt"
	"strings"
)

// Codes of run-time failures (docs/mcp.md). They are carried by *Error.
const (
	CodeStart    = "E-MCP-START"    // the server could not be started, or failed the handshake or tools/list
	CodeExited   = "E-MCP-EXITED"   // the server exited (crashed) while in use
	CodeTimeout  = "E-MCP-TIMEOUT"  // a call did not answer within call_timeout_s
	CodeToolErr  = "E-MCP-TOOL"     // the tool answered with isError
	CodeProtocol = "E-MCP-PROTOCOL" // the server answered a call with a JSON-RPC error
)

// tailLines is how much of a failed server's stderr an error shows.
const tailLines = 15

// Error is a failure of an MCP server or of one of its tools. It names
// the server, the tool when there is one, and for a server that could not
// start or exited, the last lines it wrote to stderr.
type Error struct {
	Server string
	Tool   string // the server's name of the tool; "" for the server as a whole
	Code   string
	Msg    string
	Stderr string // last lines of the server's stderr, when it failed
	Fix    string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: mcp server %q", e.Code, e.Server)
	if e.Tool != "" {
		fmt.Fprintf(&b, ", tool %q", e.Tool)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString("; ")
		b.WriteString(e.Fix)
	}
	if e.Stderr != "" {
		b.WriteString("\nstderr of the server (last lines):\n")
		for _, l := range strings.Split(e.Stderr, "\n") {
			b.WriteString("  | ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	} else if e.Code == CodeStart || e.Code == CodeExited {
		b.WriteString(" (the server wrote nothing to stderr)")
	}
	return strings.TrimRight(b.String(), "\n")
}
