package ptc

import (
	"strings"
	"testing"
)

// TestParseFileConfigEditedAsText edits the [ptc] table by hand: a ptc key
// that is not a table is an error naming the file, and a fractional
// rollout percentage keeps every digit.
func TestParseFileConfigEditedAsText(t *testing.T) {
	if f, err := ParseFileConfig("agentlab.toml", []byte("ptc = 3\n")); err == nil || !strings.Contains(err.Error(), "agentlab.toml: ptc must be a table") {
		t.Errorf("ptc = 3: %+v, %v", f, err)
	}
	f, err := ParseFileConfig("agentlab.toml", []byte("[ptc]\nrollout_percent = 12.5\n"))
	if err != nil || f == nil || f.RolloutPercent != "12.5" {
		t.Fatalf("rollout_percent = 12.5: %+v, %v", f, err)
	}
	cfg, warns := ConfigFromEnv(func(string) string { return "" }, f)
	if cfg.RolloutPercent != 12.5 || len(warns) != 0 {
		t.Errorf("rollout 12.5 read as %v, %v", cfg.RolloutPercent, warns)
	}
}
