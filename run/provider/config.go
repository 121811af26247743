package provider

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/pelletier/go-toml/v2"
)

// Diagnostic codes of the [providers] table of a config file.
const (
	CodeConfigTOML   = "E-PROVCFG-TOML"   // the file is not valid TOML
	CodeConfigKey    = "E-PROVCFG-KEY"    // an unknown key under [providers]
	CodeConfigValue  = "E-PROVCFG-VALUE"  // a value of the wrong type or out of range
	CodeConfigSecret = "W-PROVCFG-SECRET" // an API key in the project file, which is usually committed
)

// Config is the [providers] table of agentlab.toml (the project file) or
// of the user's config.toml: base URLs, keys, timeouts, retries and the
// price table. Environment variables still take precedence over it (see
// RemoteOptions).
type Config struct {
	Remote RemoteOptions
	Prices map[string]Price
}

type configEndpoint struct {
	BaseURL string `toml:"base_url"`
	APIKey  string `toml:"api_key"`
}

type configPrice struct {
	InputPerMTok      *float64 `toml:"input_per_mtok"`
	OutputPerMTok     *float64 `toml:"output_per_mtok"`
	CacheReadPerMTok  *float64 `toml:"cache_read_per_mtok"`
	CacheWritePerMTok *float64 `toml:"cache_write_per_mtok"`
}

type configProviders struct {
	OpenAI        *configEndpoint        `toml:"openai"`
	Anthropic     *configEndpoint        `toml:"anthropic"`
	Timeout       *string                `toml:"timeout"`
	IdleTimeout   *string                `toml:"idle_timeout"`
	HeaderTimeout *string                `toml:"header_timeout"`
	MaxAttempts   *int64                 `toml:"max_attempts"`
	BaseDelay     *string                `toml:"base_delay"`
	MaxDelay      *string                `toml:"max_delay"`
	MaxRetryAfter *string                `toml:"max_retry_after"`
	Prices        map[string]configPrice `toml:"prices"`
}

// configKeys lists the keys allowed in each table, for did-you-mean.
var configKeys = map[string][]string{
	"providers":           {"openai", "anthropic", "timeout", "idle_timeout", "header_timeout", "max_attempts", "base_delay", "max_delay", "max_retry_after", "prices"},
	"providers.openai":    {"base_url", "api_key"},
	"providers.anthropic": {"base_url", "api_key"},
	"providers.prices.*":  {"input_per_mtok", "output_per_mtok", "cache_read_per_mtok", "cache_write_per_mtok"},
}

// configExpect says what each key holds, for type errors.
var configExpect = map[string]string{
	"timeout": "a duration such as \"10m\"", "idle_timeout": "a duration such as \"2m\"", "header_timeout": "a duration such as \"2m\"",
	"base_delay": "a duration such as \"1s\"", "max_delay": "a duration such as \"30s\"",
	"max_retry_after": "a duration such as \"60s\"", "max_attempts": "a whole number of at least 1",
	"base_url": "a URL string", "api_key": "a string",
	"openai": "a table", "anthropic": "a table", "prices": "a table of models", "providers": "a table ([providers])",
	"input_per_mtok": "a number of US dollars per million tokens", "output_per_mtok": "a number of US dollars per million tokens",
	"cache_read_per_mtok": "a number of US dollars per million tokens", "cache_write_per_mtok": "a number of US dollars per million tokens",
}

// ParseConfig reads the [providers] table of a config file; other tables
// are left to their own readers. project marks the project's agentlab.toml,
// where an API key draws a warning since that file is usually committed.
// Every problem is a positioned diagnostic; the Config is nil when there is
// an error.
func ParseConfig(file string, data []byte, project bool) (*Config, diag.List) {
	var l diag.List
	var doc struct {
		Providers *configProviders `toml:"providers"`
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&doc)
	var sme *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case err == nil:
	case errors.As(err, &sme):
		for _, e := range sme.Errors {
			key := e.Key()
			if len(key) < 2 || key[0] != "providers" {
				continue // another reader's table
			}
			row, col := e.Position()
			table := strings.Join(key[:len(key)-1], ".")
			if len(key) == 4 && key[1] == "prices" {
				table = "providers.prices.*"
			}
			name := key[len(key)-1]
			allowed := configKeys[table]
			fix := "allowed keys are " + strings.Join(allowed, ", ")
			if s := closest(name, allowed); s != "" {
				fix = fmt.Sprintf("did you mean %q? %s", s, fix)
			}
			l.Errorf(file, diag.Pos{Line: row, Col: col}, CodeConfigKey, fix, "unknown key %q in [%s]", name, strings.Join(key[:len(key)-1], "."))
		}
	case errors.As(err, &de):
		row, col := de.Position()
		key := de.Key()
		if len(key) == 0 {
			l.Errorf(file, diag.Pos{Line: row, Col: col}, CodeConfigTOML, "fix the TOML syntax at the position shown", "not valid TOML: %s", tomlMessage(de))
			return nil, l
		}
		msg := tomlMessage(de)
		m := tomlTypeErr.FindStringSubmatch(msg)
		if m == nil { // a TOML error inside the table, such as a duplicate key
			l.Errorf(file, diag.Pos{Line: row, Col: col}, CodeConfigTOML, "fix the TOML at the position shown", "not valid TOML: %s", msg)
			return nil, l
		}
		name := key[len(key)-1]
		want := configExpect[name]
		if len(key) == 3 && key[1] == "prices" {
			want = "a table {input_per_mtok = …, output_per_mtok = …}"
		}
		if want == "" {
			want = "a value of the documented type"
		}
		l.Errorf(file, diag.Pos{Line: row, Col: col}, CodeConfigValue, "write "+want, "%s is a TOML %s, but it must be %s", strings.Join(key, "."), m[1], want)
		return nil, l
	default:
		l.Errorf(file, diag.Pos{Line: 1, Col: 1}, CodeConfigTOML, "fix the file so that it is valid TOML", "cannot read the file: %v", err)
		return nil, l
	}
	c := &Config{}
	p := doc.Providers
	if p == nil {
		if l.HasErrors() {
			return nil, l
		}
		return c, l
	}
	at := func(table, key string) diag.Pos { return keyPos(data, table, key) }
	// Durations are Go duration strings ("90s", "10m"); a bare number is
	// refused because its unit would be a guess.
	dur := func(key string, v *string, dst *time.Duration) {
		if v == nil {
			return
		}
		d, err := time.ParseDuration(strings.TrimSpace(*v))
		if err != nil || d <= 0 {
			l.Errorf(file, at("providers", key), CodeConfigValue, "write "+configExpect[key],
				"providers.%s: %q is not a positive duration", key, *v)
			return
		}
		*dst = d
	}
	dur("timeout", p.Timeout, &c.Remote.Timeout)
	dur("idle_timeout", p.IdleTimeout, &c.Remote.IdleTimeout)
	dur("header_timeout", p.HeaderTimeout, &c.Remote.HeaderTimeout)
	dur("base_delay", p.BaseDelay, &c.Remote.BaseDelay)
	dur("max_delay", p.MaxDelay, &c.Remote.MaxDelay)
	dur("max_retry_after", p.MaxRetryAfter, &c.Remote.MaxRetryAfter)
	if p.MaxAttempts != nil {
		if *p.MaxAttempts < 1 || *p.MaxAttempts > 100 {
			l.Errorf(file, at("providers", "max_attempts"), CodeConfigValue, "write a whole number from 1 (no retries) to 100",
				"providers.max_attempts is %d", *p.MaxAttempts)
		} else {
			c.Remote.MaxAttempts = int(*p.MaxAttempts)
		}
	}
	for _, ep := range []struct {
		name      string
		cfg       *configEndpoint
		base, key *string
		env       string
	}{
		{"openai", p.OpenAI, &c.Remote.OpenAIBaseURL, &c.Remote.OpenAIKey, "OPENAI_API_KEY"},
		{"anthropic", p.Anthropic, &c.Remote.AnthropicBaseURL, &c.Remote.AnthropicKey, "ANTHROPIC_API_KEY"},
	} {
		if ep.cfg == nil {
			continue
		}
		*ep.base, *ep.key = strings.TrimSpace(ep.cfg.BaseURL), strings.TrimSpace(ep.cfg.APIKey)
		if project && *ep.key != "" {
			l.Warnf(file, at("providers."+ep.name, "api_key"), CodeConfigSecret,
				fmt.Sprintf("move it to %s or to the user config file ($XDG_CONFIG_HOME/agentlab/config.toml), and revoke the key if this file was ever shared", ep.env),
				"an API key is written in the project file %s, which is usually committed", file)
		}
	}
	if len(p.Prices) > 0 {
		c.Prices = map[string]Price{}
		models := make([]string, 0, len(p.Prices))
		for m := range p.Prices {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			cp := p.Prices[m]
			if cp.InputPerMTok == nil || cp.OutputPerMTok == nil || !validPrice(*cp.InputPerMTok) || !validPrice(*cp.OutputPerMTok) {
				l.Errorf(file, at("providers.prices", m), CodeConfigValue, "give both input_per_mtok and output_per_mtok as numbers of at least 0 (US dollars per million tokens)",
					"the price of model %q is incomplete or negative", m)
				continue
			}
			if (cp.CacheReadPerMTok != nil && !validPrice(*cp.CacheReadPerMTok)) || (cp.CacheWritePerMTok != nil && !validPrice(*cp.CacheWritePerMTok)) {
				l.Errorf(file, at("providers.prices", m), CodeConfigValue, "give cache_read_per_mtok and cache_write_per_mtok as numbers of at least 0 (US dollars per million tokens), or leave them out",
					"a cache price of model %q is negative", m)
				continue
			}
			c.Prices[m] = Price{InputPerMTok: *cp.InputPerMTok, OutputPerMTok: *cp.OutputPerMTok, CacheReadPerMTok: cp.CacheReadPerMTok, CacheWritePerMTok: cp.CacheWritePerMTok}
		}
	}
	if l.HasErrors() {
		return nil, l
	}
	return c, l
}

func validPrice(f float64) bool { return f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f) }

// tomlTypeErr matches the decoder's complaint about a value of the wrong
// type, capturing the TOML type found.
var tomlTypeErr = lazyre.New(`^cannot decode TOML (\w+)`)

// tomlMessage is the decoder's message without its "toml: " prefix.
func tomlMessage(de *toml.DecodeError) string {
	return strings.TrimPrefix(de.Error(), "toml: ")
}

// keyPos finds where key is defined in table ("providers.prices"), either
// under a [table] header or as a dotted key or header of a sub-table, for
// checks made after decoding. It falls back to the first line.
func keyPos(data []byte, table, key string) diag.Pos {
	current := ""
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		if strings.HasPrefix(line, "[") {
			name := strings.Trim(strings.SplitN(line, "#", 2)[0], "[] \t\r")
			current = normalizeTOMLKey(name)
			if current == table+"."+normalizeTOMLKey(key) {
				return diag.Pos{Line: i + 1, Col: indent + 1}
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		full := normalizeTOMLKey(k)
		if current != "" {
			full = current + "." + full
		}
		if full == table+"."+normalizeTOMLKey(key) {
			return diag.Pos{Line: i + 1, Col: indent + 1}
		}
	}
	return diag.Pos{Line: 1, Col: 1}
}

// normalizeTOMLKey joins the parts of a dotted key without quotes or
// spaces (good enough for the plain and quoted model names of a config).
func normalizeTOMLKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// LoadConfig reads the [providers] tables of the project file (the
// nearest agentlab.toml) and the user's config.toml, either of which may be
// "" or missing, and merges them: the project file wins field by field,
// prices model by model.
func LoadConfig(projectFile, userFile string) (*Config, diag.List) {
	var all diag.List
	var layers []*Config
	var project, user *Config
	for _, f := range []struct {
		path    string
		project bool
	}{{projectFile, true}, {userFile, false}} {
		if f.path == "" {
			continue
		}
		data, err := fsutil.ReadConfigFile(f.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			all.Errorf(f.path, diag.Pos{Line: 1, Col: 1}, CodeConfigTOML, "check the file's permissions", "cannot read the config file: %v", err)
			continue
		}
		RegisterEndpointStrings(data)
		c, l := ParseConfig(f.path, data, f.project)
		all = append(all, l...)
		if c != nil {
			layers = append(layers, c)
			if f.project {
				project = c
			} else {
				user = c
			}
		}
	}
	if all.HasErrors() {
		return nil, all
	}
	merged := &Config{}
	for _, c := range layers {
		merged.under(c)
	}
	if project != nil {
		bindBaseURL(merged, project, user, projectFile, &all)
	}
	return merged, all
}

// CodeConfigBaseURL is a base_url of the project file that is not used:
// it would have received a key the project file does not hold.
const CodeConfigBaseURL = "W-PROVCFG-BASEURL"

// bindBaseURL keeps the user's provider keys going only where the user
// sends them. The project file may not override a base_url the user's
// config sets, and its own base_url is used only with a key it holds
// itself (or with no key at all): a key from the user's config or the
// environment (OPENAI_API_KEY, ANTHROPIC_API_KEY) goes to the user's base
// URL, else OPENAI_BASE_URL/ANTHROPIC_BASE_URL, else the provider's own.
func bindBaseURL(merged, project, user *Config, projectFile string, l *diag.List) {
	if user == nil {
		user = &Config{}
	}
	for _, ep := range []struct {
		name, keyEnv      string
		base              *string
		projBase, projKey string
		userBase, userKey string
	}{
		{"openai", "OPENAI_API_KEY", &merged.Remote.OpenAIBaseURL, project.Remote.OpenAIBaseURL, project.Remote.OpenAIKey, user.Remote.OpenAIBaseURL, user.Remote.OpenAIKey},
		{"anthropic", "ANTHROPIC_API_KEY", &merged.Remote.AnthropicBaseURL, project.Remote.AnthropicBaseURL, project.Remote.AnthropicKey, user.Remote.AnthropicBaseURL, user.Remote.AnthropicKey},
	} {
		if ep.projBase == "" || ep.projBase == ep.userBase {
			continue
		}
		envKey := strings.TrimSpace(os.Getenv(ep.keyEnv)) != ""
		var why string
		switch {
		case ep.userBase != "":
			why = "the user's config sets its own base_url, which the project file cannot override"
		case envKey || (ep.userKey != "" && ep.projKey == ""):
			why = "the API key comes from " + map[bool]string{true: ep.keyEnv, false: "the user's config"}[envKey] + ", not from the project file, and a key goes only to the base_url of the configuration that holds it"
		default:
			continue
		}
		*ep.base = ep.userBase
		l.Warnf(projectFile, diag.Pos{Line: 1, Col: 1}, CodeConfigBaseURL,
			"set the base_url in the user config file ($XDG_CONFIG_HOME/agentlab/config.toml) if you mean to send your key there",
			"[providers.%s] base_url %q of the project file is not used: %s", ep.name, ep.projBase, why)
	}
}

// ProjectConfigFile returns the nearest agentlab.toml in dir or one of
// its parents, or "" when there is none.
func ProjectConfigFile(dir string) string {
	return fsutil.FindUp(dir, "agentlab.toml")
}

// ConfigError is a config file whose [providers] table cannot be used;
// Diagnostics says where.
type ConfigError struct {
	Diagnostics diag.List
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("the provider configuration has mistakes:")
	for _, d := range e.Diagnostics.Sorted() {
		if d.Severity == diag.Error {
			b.WriteString("\n  " + d.String())
			if d.Fix != "" {
				b.WriteString("\n    fix: " + d.Fix)
			}
		}
	}
	return b.String()
}

// applyConfigFiles fills opts from the config files, for New: the
// project's agentlab.toml (nearest to the flow's directory, else to the
// working directory) and the
// user's config.toml. What opts already holds wins; the environment wins
// over both, in the constructors.
func applyConfigFiles(opts *Options) error {
	// The project file is the one nearest the flow (opts.BaseDir), as for
	// [permissions] and [mcp]; without a base directory, the working
	// directory's.
	wd := opts.BaseDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	project := ""
	if wd != "" {
		project = ProjectConfigFile(wd)
	}
	c, diags := LoadConfig(project, UserConfigFile())
	if diags.HasErrors() {
		return &ConfigError{Diagnostics: diags}
	}
	c.Apply(opts)
	return nil
}

// ConfigWarnings returns the warnings (no errors) of the config files a
// remote provider would read for a flow in baseDir, such as an API key
// written in the project's agentlab.toml (W-PROVCFG-SECRET), for the
// command to show before a run; New itself reports only errors.
func ConfigWarnings(baseDir string) diag.List {
	if baseDir == "" {
		baseDir, _ = os.Getwd()
	}
	project := ""
	if baseDir != "" {
		project = ProjectConfigFile(baseDir)
	}
	_, all := LoadConfig(project, UserConfigFile())
	var out diag.List
	for _, d := range all {
		if d.Severity != diag.Error {
			out = append(out, d)
		}
	}
	return out
}

// UserConfigFile is the user's config file:
// $XDG_CONFIG_HOME/agentlab/config.toml, or ~/.config/agentlab/config.toml.
func UserConfigFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agentlab", "config.toml")
}

// under fills the fields of c that are not set from lower.
func (c *Config) under(lower *Config) {
	r, lr := &c.Remote, lower.Remote
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fillD := func(dst *time.Duration, v time.Duration) {
		if *dst == 0 {
			*dst = v
		}
	}
	fill(&r.OpenAIKey, lr.OpenAIKey)
	fill(&r.OpenAIBaseURL, lr.OpenAIBaseURL)
	fill(&r.AnthropicKey, lr.AnthropicKey)
	fill(&r.AnthropicBaseURL, lr.AnthropicBaseURL)
	fillD(&r.Timeout, lr.Timeout)
	fillD(&r.IdleTimeout, lr.IdleTimeout)
	fillD(&r.HeaderTimeout, lr.HeaderTimeout)
	fillD(&r.BaseDelay, lr.BaseDelay)
	fillD(&r.MaxDelay, lr.MaxDelay)
	fillD(&r.MaxRetryAfter, lr.MaxRetryAfter)
	if r.MaxAttempts == 0 {
		r.MaxAttempts = lr.MaxAttempts
	}
	for m, p := range lower.Prices {
		if _, ok := c.Prices[m]; !ok {
			if c.Prices == nil {
				c.Prices = map[string]Price{}
			}
			c.Prices[m] = p
		}
	}
}

// Apply fills what opts leaves unset from c: the caller's own settings
// (flags) win over the config files.
func (c *Config) Apply(opts *Options) {
	if c == nil {
		return
	}
	own := &Config{Remote: opts.Remote, Prices: maps.Clone(opts.Prices)}
	own.under(c)
	opts.Remote, opts.Prices = own.Remote, own.Prices
}

// KeyPos is keyPos for the other tables' checks.
func KeyPos(data []byte, table, key string) diag.Pos { return keyPos(data, table, key) }
