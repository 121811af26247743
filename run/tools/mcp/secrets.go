package mcp

import (
	"net/url"

	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/run/redact"
)

// secretName matches the names under which a server's env table carries
// credentials (NOTES_TOKEN, API_KEY, DB_PASSWORD, GITHUB_PAT…).
var secretName = lazyre.New(`(?i)(key|token|secret|pass|pwd|cred|auth|cookie|session|private|signature|dsn|(^|_)pat($|_))`)

// registerSecrets hands the secrets a server is started with to package
// redact before the server can echo them: every pass_env value (the way
// to give a server a token without writing it into the file), every env
// value whose name says it is a credential, and the password of an env
// value that is a URL carrying one. A server that prints its token in a
// result, an error or its stderr then leaves [REDACTED] in the events,
// artifacts, pages and console. Other env values (NOTES_DIR = "/srv/notes")
// stay readable: they are settings, and replacing them would mangle the
// results that mention them.
func registerSecrets(spec ServerSpec, env map[string]string) {
	for _, k := range spec.PassEnv {
		redact.Add(env[k])
	}
	for k, v := range spec.Env {
		if k == "PATH" {
			continue
		}
		if secretName.MatchString(k) {
			redact.Add(v)
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				redact.Add(pw)
			}
		}
	}
}
