package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
)

// CodeSecretConfig is a malformed [secrets] table.
const CodeSecretConfig = "E-SECRET-CONFIG"

// SecretBindings say, for each secret a custom tool may send, the hosts it
// may be sent to: the [secrets] tables of the operator's configuration
//
//	[secrets.SHOP_TOKEN]
//	hosts = ["api.shop.example", "*.shop.example:8443"]
//
// A secret no table declares is never sent; one declared is sent only to
// a URL whose host (and port) one of its patterns matches — the patterns
// of the [http_fetch] allow-list.
type SecretBindings map[string][]string

// ParseSecretsConfig reads the [secrets] tables of a configuration file.
func ParseSecretsConfig(file string, data []byte) (SecretBindings, diag.List) {
	var ds diag.List
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		ds.Errorf(file, diag.Pos{Line: 1, Col: 1}, CodeSecretConfig, "fix the TOML syntax", "not valid TOML: %v", err)
		return nil, ds
	}
	out := SecretBindings{}
	raw, ok := doc["secrets"]
	if !ok {
		return out, nil
	}
	lines := strings.Split(string(data), "\n")
	table, ok := raw.(map[string]any)
	if !ok {
		ds.Errorf(file, tableKeyPos(lines, "secrets", ""), CodeSecretConfig, "write one table per secret: [secrets.NAME] hosts = [\"api.example.com\"]", "secrets is not a table")
		return nil, ds
	}
	names := make([]string, 0, len(table))
	for k := range table {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		at := tableKeyPos(lines, "secrets."+name, "hosts")
		fix := `write [secrets.` + name + `] hosts = ["api.example.com"]`
		t, ok := table[name].(map[string]any)
		if !ok {
			ds.Errorf(file, at, CodeSecretConfig, fix, "secrets.%s is not a table", name)
			continue
		}
		var hosts []string
		for k, v := range t {
			if k != "hosts" {
				ds.Errorf(file, tableKeyPos(lines, "secrets."+name, k), CodeSecretConfig, "the only key of a [secrets.NAME] table is hosts", "unknown key %q in [secrets.%s]", k, name)
				continue
			}
			l, ok := v.([]any)
			if !ok || len(l) == 0 {
				ds.Errorf(file, at, CodeSecretConfig, fix, "secrets.%s.hosts is not a non-empty list of host patterns", name)
				continue
			}
			for _, x := range l {
				s, ok := x.(string)
				if _, err := NewFetcher(FetchConfig{Allow: []string{s}}); !ok || err != nil || strings.TrimSpace(s) == "*" {
					ds.Errorf(file, at, CodeSecretConfig, `write "host", "host:port" or "*.domain", with port a number or *`, "secrets.%s.hosts: %v is not a host pattern", name, x)
					continue
				}
				hosts = append(hosts, s)
			}
		}
		if len(hosts) > 0 {
			out[name] = hosts
		}
	}
	if ds.HasErrors() {
		return nil, ds
	}
	return out, ds
}

// LoadSecretBindings reads the [secrets] tables of files in order of
// precedence (the user's config.toml first): a secret declared by an
// earlier file keeps its hosts, so a later (project) file cannot send the
// user's secret elsewhere. Missing files are skipped.
func LoadSecretBindings(files ...string) (SecretBindings, diag.List) {
	out := SecretBindings{}
	var all diag.List
	for _, f := range files {
		if f == "" {
			continue
		}
		data, err := fsutil.ReadConfigFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			all.Errorf(f, diag.Pos{Line: 1, Col: 1}, CodeSecretConfig, "check that the file is readable", "cannot read the configuration: %v", err)
			continue
		}
		b, ds := ParseSecretsConfig(f, data)
		all = append(all, ds...)
		for name, hosts := range b {
			if _, ok := out[name]; !ok {
				out[name] = hosts
			}
		}
	}
	return out, all
}

// sendable says whether secret name may go to rawURL, and if not why.
func (b SecretBindings) sendable(name, rawURL string) error {
	hosts, ok := b[name]
	if !ok {
		return fmt.Errorf("secret %s is bound to no host by the operator's configuration, so it is never sent", name)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	f, err := NewFetcher(FetchConfig{Allow: hosts})
	if err != nil {
		return err
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if !f.allowed(host, port, u.Scheme) {
		return fmt.Errorf("secret %s may be sent only to %s, not to %s:%s", name, strings.Join(hosts, ", "), host, port)
	}
	return nil
}

// HostMatches reports whether the host and port of rawURL match one of
// the host patterns.
func HostMatches(hosts []string, rawURL string) bool {
	return SecretBindings{"x": hosts}.sendable("x", rawURL) == nil
}
