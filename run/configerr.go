package run

import (
	"fmt"

	"github.com/agentlab/agentlab/diag"
)

// ConfigError is a table of agentlab.toml (or of the user's config.toml)
// that the run needs and cannot use: [permissions], [http_fetch] or the
// [mcp] servers the flow names. It carries one positioned diagnostic per
// problem so that the command prints them as every other diagnostic (file,
// line, column, code, fix; JSON with --format json) rather than as one
// line. It travels inside a *UsageError: nothing was run.
type ConfigError struct {
	// Table names what was being read, as "[permissions]".
	Table       string
	Diagnostics diag.List
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("the %s configuration has mistakes:\n%s", e.Table, e.Diagnostics.Summary())
}

// configError wraps the diagnostics of a configuration table as a usage
// error.
func configError(table string, ds diag.List) error {
	return &UsageError{&ConfigError{Table: table, Diagnostics: ds.Sorted()}}
}
