package tools

import "strings"

// ReservedPrefixes are the name families of the tools agentlab provides:
// the workspace file tools, the HTTP fetch tool, the source query tools
// and the MCP servers' tools. A flow's custom tool may not take a name in
// one of them, so that an operator's rule written for a family
// (`tool = "file_*"`) never speaks for a tool the flow declared.
var ReservedPrefixes = []string{"file_", "http_", "db_query__", "mcp__"}

// ReservedPrefix returns the reserved prefix name starts with, if any.
func ReservedPrefix(name string) (string, bool) {
	for _, p := range ReservedPrefixes {
		if strings.HasPrefix(name, p) {
			return p, true
		}
	}
	return "", false
}
