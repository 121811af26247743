package mcp

import (
	"encoding/hex"
	"strings"

	"github.com/agentlab/agentlab/hashid"
)

// Prefix starts the name of every MCP tool: mcp__<server>__<tool>.
const Prefix = "mcp__"

// maxName is the longest tool name every model provider accepts (and the
// registry's limit).
const maxName = 64

// ToolName is the agentlab name of a server's tool.
func ToolName(server, tool string) string { return Prefix + server + "__" + tool }

// SplitName undoes ToolName: the server is what stands between the prefix
// and the next "__" (server names cannot contain "__").
func SplitName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// namer assigns the agentlab names of one server's tools. MCP allows
// characters (".", "/") and lengths that model providers refuse, so a
// name is mapped to letters, digits, "_" and "-"; a name that had to be
// changed and collides with another, or that is too long, ends in a short
// hash of the server's own name instead, which keeps it stable run to run
// and distinct. Call assign in a fixed (sorted) order of remote names.
type namer struct {
	server string
	taken  map[string]bool
}

func newNamer(server string) *namer { return &namer{server: server, taken: map[string]bool{}} }

// assignAll names every remote tool of a server: first the names that
// need no change, then the others, so that a tool whose name had to be
// changed ("read.note") never takes the name of one that did not
// ("read_note") — and with it the permission rules written for that one.
func (n *namer) assignAll(remotes []string) map[string]string {
	out := make(map[string]string, len(remotes))
	for _, pass := range []bool{true, false} {
		for _, r := range remotes {
			if _, done := out[r]; !done && validAsIs(r) == pass {
				out[r] = n.assign(r)
			}
		}
	}
	return out
}

// validAsIs reports whether a remote name needs no change.
func validAsIs(remote string) bool {
	for _, r := range remote {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return remote != ""
}

func (n *namer) assign(remote string) string {
	var b strings.Builder
	for _, r := range remote {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := ToolName(n.server, b.String())
	if len(name) > maxName || n.taken[name] {
		sum := hashid.Sum([]byte(remote))
		tag := "_" + hex.EncodeToString(sum[:4])
		if len(name)+len(tag) > maxName {
			name = name[:maxName-len(tag)]
		}
		name += tag
	}
	n.taken[name] = true
	return name
}
