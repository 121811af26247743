package run

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"time"

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

// resolveTimeout bounds the lookup of a URL's host for the rules.
const resolveTimeout = 2 * time.Second

// belowMax bounds the entries of a directory that the rules of a grep or
// listing of it are checked against (belowAliases).
const belowMax = 100_000

// aliases gives deny and ask rules the other calls one call amounts to:
// for http_fetch, the URL with its host name replaced by each address it
// resolves to (belowAliases for file_grep and file_list). An alias can
// only narrow: allow rules never see it.
func (p *permissions) aliases(tool string, args any) []any {
	if tool == "file_grep" || tool == "file_list" {
		return p.belowAliases(tool, args)
	}
	return p.urlAliases(tool, args)
}

// belowAliases gives deny and ask rules a grep or a listing of a directory
// as a call on each entry beneath it (the whole workspace when no path is
// given), so that a deny on secrets/* is not sidestepped by grepping "."
// or listing secrets. Entries past belowMax are not checked.
func (p *permissions) belowAliases(tool string, args any) []any {
	m, ok := args.(map[string]any)
	if !ok || p.ws == nil {
		return nil
	}
	dir, _ := m["path"].(string)
	if dir == "" {
		dir = "."
	}
	entries, _ := p.ws.Below(dir, belowMax)
	out := make([]any, 0, len(entries))
	for _, e := range entries {
		out = append(out, withArg(m, "path", e))
	}
	return out
}

// urlAliases gives deny and ask rules the URL of an http_fetch call with
// its host name replaced by each address it resolves to, looked up the way
// the fetcher will (its resolver), so that a rule written for an address
// also holds for a name that points there. A name that does not resolve
// has no aliases (the fetcher refuses it).
func (p *permissions) urlAliases(tool string, args any) []any {
	m, ok := args.(map[string]any)
	if tool != "http_fetch" || !ok || p.resolve == nil {
		return nil
	}
	s, _ := m["url"].(string)
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return nil // already an address
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := p.resolve(ctx, u.Hostname())
	if err != nil {
		return nil
	}
	var out []any
	for _, a := range addrs {
		host := a.Unmap().String()
		if a.Unmap().Is6() {
			host = "[" + host + "]"
		}
		if port := u.Port(); port != "" {
			host += ":" + port
		}
		v := *u
		v.Host = host
		out = append(out, withArg(m, "url", tools.NormalizeURL(v.String())))
	}
	return out
}
