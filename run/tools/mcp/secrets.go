package mcp

import "github.com/agentlab/agentlab/run/redact"

// registerSecrets hands the secrets a server is started with to package
// redact before the server can echo them: every pass_env value (the way
// to give a server a token without writing it into the file), every env
// value whose name says it is a credential (redact.CredentialName), and
// the credentials of an env value that is a URL carrying them. A server
// that prints its token in a result, an error or its stderr then leaves
// [REDACTED] in the events, artifacts, pages and console. Other env values
// (NOTES_DIR = "/srv/notes") stay readable: they are settings, and
// replacing them would mangle the results that mention them.
func registerSecrets(spec ServerSpec, env map[string]string) {
	for _, k := range spec.PassEnv {
		redact.Add(env[k])
	}
	for k, v := range spec.Env {
		if k == "PATH" {
			continue
		}
		if redact.CredentialName(k) {
			redact.Add(v)
		}
		redact.AddURL(v)
	}
}
