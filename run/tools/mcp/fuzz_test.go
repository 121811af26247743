package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfig: no input panics; every diagnostic is an error with a
// known code and a position inside the file; a file without errors gives
// only specs that Start can accept.
func FuzzParseConfig(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/config/*/*.toml")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, ds := ParseConfig("agentlab.toml", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, d := range ds {
			if d.Code != CodeConfig && d.Code != CodeServer && d.Code != CodeApproval {
				t.Errorf("unknown code %s", d.Code)
			}
			if d.Line < 1 || d.Line > lines || d.Col < 1 {
				t.Errorf("position %d:%d outside a file of %d lines: %s", d.Line, d.Col, lines, d.Message)
			}
			if d.Fix == "" {
				t.Errorf("no fix: %s", d.Message)
			}
		}
		if ds.HasErrors() {
			if specs != nil {
				t.Error("specs returned with errors")
			}
			return
		}
		for _, s := range specs {
			if !serverName.MatchString(s.Name) || strings.Contains(s.Name, "__") || len(s.Command) == 0 || s.Command[0] == "" {
				t.Errorf("accepted an unusable spec %+v", s)
			}
			if s.StartTimeout <= 0 || s.CallTimeout <= 0 || s.Approval == "" || !filepath.IsAbs(s.Dir) {
				t.Errorf("spec without its defaults %+v", s)
			}
		}
	})
}
