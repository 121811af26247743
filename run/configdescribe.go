package run

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/tools"
	"github.com/agentlab/agentlab/run/tools/mcp"
)

// DescribeConfigFile says, one line each, what a configuration file in
// force decides — the project's agentlab.toml (project true) or the user's
// config.toml — for `agentlab doctor`: whether it is trusted, its
// permission rules, fetch ranges, MCP servers, provider base URLs, secret
// bindings, sandbox backend and trusted directories. A table that cannot be read is left
// to CheckConfigFile, which reports it.
func DescribeConfigFile(file string, project bool) []string {
	data, err := fsutil.ReadConfigFile(file)
	if err != nil {
		return nil
	}
	var out []string
	if project {
		why, _ := untrustedBecause(file)
		switch {
		case why == "":
			out = append(out, "yours and writable only by you: in force")
		case trustedDir(file):
			out = append(out, why+"; in force because you trust its directory (agentlab trust)")
		default:
			out = append(out, why+"; NOT in force: runs refuse it (E-CONFIG-UNTRUSTED) until you run `agentlab trust "+shellQuote(dirOf(file))+"`")
		}
		if c, ds := permission.ParseConfig(file, data); c != nil && !ds.HasErrors() {
			n := map[permission.Verdict]int{}
			for _, r := range c.Rules {
				n[r.Decision]++
			}
			out = append(out, fmt.Sprintf("permissions: %d rule(s) — %d deny, %d ask, %d allow — checked before any flow rule; a flow may only narrow them", len(c.Rules), n[permission.Deny], n[permission.Ask], n[permission.Allow]))
		}
		if c, ds := tools.ParseFetchConfig(file, data); !ds.HasErrors() && (len(c.Allow) > 0 || len(c.AllowNets) > 0) {
			nets := make([]string, len(c.AllowNets))
			for i, p := range c.AllowNets {
				nets[i] = p.String()
			}
			out = append(out, fmt.Sprintf("http_fetch: allow-list [%s], opened ranges [%s]", strings.Join(c.Allow, ", "), strings.Join(nets, ", ")))
		}
	}
	if specs, ds := mcp.ParseConfig(file, data); !ds.HasErrors() && len(specs) > 0 {
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.Name
		}
		line := "mcp servers: " + strings.Join(names, ", ")
		if project {
			line += " (a server the user's config declares under the same name is the user's)"
		}
		out = append(out, line)
	}
	provider.RegisterEndpointStrings(data)
	if c, ds := provider.ParseConfig(file, data, project); c != nil && !ds.HasErrors() {
		for _, ep := range []struct{ name, base string }{{"openai", c.Remote.OpenAIBaseURL}, {"anthropic", c.Remote.AnthropicBaseURL}} {
			if ep.base != "" {
				line := fmt.Sprintf("providers.%s base_url %s", ep.name, ep.base)
				if project {
					line += " (used only with a key this file holds, and never over the user's own base_url)"
				}
				out = append(out, line)
			}
		}
	}
	if b, ds := parseSandboxTable(file, data); !ds.HasErrors() && b != "" {
		out = append(out, fmt.Sprintf("sandbox backend %s (AGENTLAB_SANDBOX wins; of the user's and the project's tables, the stricter)", b))
	}
	if b, ds := tools.ParseSecretsConfig(file, data); !ds.HasErrors() && len(b) > 0 {
		names := make([]string, 0, len(b))
		for n := range b {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, fmt.Sprintf("secret %s may be sent to %s", n, strings.Join(b[n], ", ")))
		}
	}
	if !project {
		if dirs, ds := parseTrust(file, data); !ds.HasErrors() {
			for _, d := range dirs {
				out = append(out, "trusts the agentlab.toml of "+d+" whoever owns it")
			}
		}
	}
	return out
}

// trustedDir reports whether the directory of file is trusted.
func trustedDir(file string) bool {
	dirs, _ := TrustedDirs()
	for _, d := range dirs {
		if d == dirOf(file) {
			return true
		}
	}
	return false
}

// dirOf is the directory of a file.
func dirOf(file string) string { return filepath.Dir(file) }
