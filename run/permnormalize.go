package run

import (
	"strings"

	"github.com/agentlab/agentlab/run/tools"
)

// normalize gives permission rules the arguments as the tool will act on
// them: the path of a workspace file tool as the jail resolves it, the
// url of http_fetch as the fetcher requests it. Other tools' arguments
// are matched as given.
func (p *permissions) normalize(tool string, args any) any {
	m, ok := args.(map[string]any)
	if !ok {
		return args
	}
	switch {
	case strings.HasPrefix(tool, "file_") && p.ws != nil:
		s, ok := m["path"].(string)
		if !ok {
			return args
		}
		c, err := p.ws.Canonical(s)
		if err != nil {
			return args // the tool refuses it
		}
		return withArg(m, "path", c)
	case tool == "http_fetch":
		s, ok := m["url"].(string)
		if !ok {
			return args
		}
		return withArg(m, "url", tools.NormalizeURL(s))
	}
	return args
}

// withArg returns a copy of m with key set to v.
func withArg(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}
