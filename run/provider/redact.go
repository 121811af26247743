package provider

import (
	"net/url"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// secretLike matches strings shaped like API keys (OpenAI "sk-…",
// Anthropic "sk-ant-…", and servers that echo a masked key), so that a key
// quoted back by a server is not repeated even in part.
var secretLike = lazyre.New(`\b(sk|sk-ant|sk-proj)-[A-Za-z0-9_\-*.]{6,}`)

// redact removes the API key, and anything shaped like one, from s.
func (r *remote) redact(s string) string {
	if len(r.key) >= 4 {
		s = strings.ReplaceAll(s, r.key, "[REDACTED]")
	}
	return secretLike.ReplaceAllString(s, "[REDACTED]")
}

// redactURLString hides a password in a URL that may not even parse.
func redactURLString(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return "[REDACTED]@" + s[i+1:]
	}
	return s
}
