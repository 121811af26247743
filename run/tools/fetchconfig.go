package tools

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
)

// CodeFetchConfig is a malformed [http_fetch] table of agentlab.toml.
const CodeFetchConfig = "E-TOOL-FETCHCFG"

// fetchKeys are the keys of the [http_fetch] table.
var fetchKeys = []string{"allow", "allow_nets", "max_bytes", "timeout_s"}

// ParseFetchConfig reads the [http_fetch] table of agentlab.toml, which
// configures the SSRF guard of http_fetch for the runs of flows under it:
//
//	[http_fetch]
//	allow = ["api.example.com", "*.example.org:8443"]  # only these endpoints
//	allow_nets = ["10.1.2.0/24"]                         # open an internal range on purpose
//	max_bytes = 1048576                                  # response body cap
//	timeout_s = 20                                       # whole request
//
// A file without the table gives the defaults (any public host). Every
// problem is a diagnostic with the line of its key; the config is only
// usable when there is no error. Other tables are left to their readers.
func ParseFetchConfig(file string, data []byte) (FetchConfig, diag.List) {
	var ds diag.List
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		pos := diag.Pos{Line: 1, Col: 1}
		if de, ok := err.(*toml.DecodeError); ok {
			row, col := de.Position()
			pos = diag.Pos{Line: row, Col: col}
		}
		ds.Errorf(file, pos, CodeFetchConfig, "fix the TOML syntax at the position shown", "not valid TOML: %v", err)
		return FetchConfig{}, ds
	}
	var cfg FetchConfig
	raw, ok := doc["http_fetch"]
	if !ok {
		return cfg, nil
	}
	lines := strings.Split(string(data), "\n")
	at := func(key string) diag.Pos { return tableKeyPos(lines, "http_fetch", key) }
	table, ok := raw.(map[string]any)
	if !ok {
		ds.Errorf(file, at(""), CodeFetchConfig, "write it as a table: [http_fetch]", "http_fetch is not a table")
		return cfg, ds
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	strs := func(k string, v any) ([]string, bool) {
		l, ok := v.([]any)
		out := make([]string, 0, len(l))
		for _, x := range l {
			s, isStr := x.(string)
			ok = ok && isStr
			out = append(out, strings.TrimSpace(s))
		}
		if !ok {
			ds.Errorf(file, at(k), CodeFetchConfig, "write a list of strings, e.g. "+k+` = ["…"]`, "http_fetch.%s is not a list of strings", k)
		}
		return out, ok
	}
	whole := func(k string, v any, lo, hi int64) (int64, bool) {
		n, ok := v.(int64)
		if !ok || n < lo || n > hi {
			ds.Errorf(file, at(k), CodeFetchConfig, fmt.Sprintf("write a whole number from %d to %d", lo, hi), "http_fetch.%s is %v", k, v)
			return 0, false
		}
		return n, true
	}
	for _, k := range keys {
		v := table[k]
		switch k {
		case "allow":
			list, ok := strs(k, v)
			if !ok {
				continue
			}
			for _, p := range list {
				if _, err := NewFetcher(FetchConfig{Allow: []string{p}}); err != nil {
					ds.Errorf(file, at(k), CodeFetchConfig, `write "host", "host:port" or "*.domain", with port a number or *`, "http_fetch.allow: %v", err)
					continue
				}
				cfg.Allow = append(cfg.Allow, p)
			}
		case "allow_nets":
			list, ok := strs(k, v)
			if !ok {
				continue
			}
			for _, s := range list {
				pfx, err := netip.ParsePrefix(s)
				if err != nil {
					ds.Errorf(file, at(k), CodeFetchConfig, `write a CIDR range such as "10.1.2.0/24"`, "http_fetch.allow_nets: %q is not an address range", s)
					continue
				}
				cfg.AllowNets = append(cfg.AllowNets, pfx.Masked())
			}
		case "max_bytes":
			if n, ok := whole(k, v, 1, 1<<30); ok {
				cfg.MaxBytes = n
			}
		case "timeout_s":
			if n, ok := whole(k, v, 1, 3600); ok {
				cfg.Timeout = time.Duration(n) * time.Second
			}
		default:
			fix := "allowed keys are " + strings.Join(fetchKeys, ", ")
			if near, ok := diag.Closest(k, fetchKeys); ok {
				fix = fmt.Sprintf("did you mean %q? %s", near, fix)
			}
			ds.Errorf(file, at(k), CodeFetchConfig, fix, "unknown key %q in [http_fetch]", k)
		}
	}
	return cfg, ds
}

// tableKeyPos finds the line of key inside [table] (the header itself
// when key is "" or not found), for diagnostics.
func tableKeyPos(lines []string, table, key string) diag.Pos {
	header := diag.Pos{Line: 1, Col: 1}
	in := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = strings.TrimSpace(strings.Trim(t, "[]")) == table
			if in {
				header = diag.Pos{Line: i + 1, Col: strings.Index(l, "[") + 1}
			}
			continue
		}
		if !in || key == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(t, key); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return diag.Pos{Line: i + 1, Col: strings.Index(l, key) + 1}
		}
	}
	return header
}
