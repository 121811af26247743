package mcp

import (
	"strings"

	"github.com/agentlab/agentlab/run/redact"
)

// registerSecrets hands the secrets a server is started with to package
// redact before the server can echo them: every pass_env value (the way
// to give a server a token without writing it into the file), every env
// value whose name says it is a credential (redact.CredentialName), the
// credentials of an env value that is a URL carrying them, and the value
// of a command-line flag whose name says it is one (--token=…, --api-key …). A server
// that prints its token in a result, an error or its stderr then leaves
// [REDACTED] in the events, artifacts, pages and console. Other env values
// (NOTES_DIR = "/srv/notes") stay readable: they are settings, and
// replacing them would mangle the results that mention them.
func registerSecrets(spec ServerSpec, env map[string]string) {
	if len(spec.Command) > 1 {
		registerArgSecrets(spec.Command[1:])
	}
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

// registerArgSecrets registers the values of credential-named flags in a
// server's command line, given as --name=value or as --name value, and
// the credentials of any argument that is a URL carrying them.
func registerArgSecrets(argv []string) {
	for i, a := range argv {
		redact.AddURL(a)
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, glued := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !redact.CredentialName(name) {
			continue
		}
		if glued {
			redact.Add(value)
		} else if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
			redact.Add(argv[i+1])
		}
	}
}
