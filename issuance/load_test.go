package issuance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

func TestLoadMetrics(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"gmv": 1234.5}`)
	bad := write("bad.json", "{\n  \"gmv\" 1}\n")
	tests := []struct {
		name, path, code, msg string
		line, col             int
	}{
		{"missing", filepath.Join(dir, "nope.json"), CodeMetricsRead, "cannot read metrics file: no such file or directory", 1, 1},
		{"directory", dir, CodeMetricsRead, "cannot read metrics file: is a directory", 1, 1},
		{"bad JSON", bad, CodeMetricsJSON, "not valid JSON", 2, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadMetrics(tt.path)
			var d diag.Diagnostic
			if !errors.As(err, &d) {
				t.Fatalf("error %v (%T) is not a diag.Diagnostic", err, err)
			}
			if d.File != tt.path || d.Code != tt.code || d.Line != tt.line || d.Col != tt.col || !strings.Contains(d.Message, tt.msg) || d.Fix == "" || d.Severity != diag.Error {
				t.Errorf("got %+v, want %s at %d:%d with %q and a fix", d, tt.code, tt.line, tt.col, tt.msg)
			}
		})
	}
	m, err := LoadMetrics(good)
	if err != nil || len(m) != 1 || m[0].Name != "gmv" {
		t.Errorf("good file: %+v, %v", m, err)
	}
}
