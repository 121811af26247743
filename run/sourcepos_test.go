package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/run/sources"
)

func TestPlaceSourceDiag(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "flow.yml")
	src := "agentlab: 1\nname: f\nsources:\n  sales: {kind: csv, path: data/sale.csv}\n  shop:\n    kind: sqlite\n    path: shop.db\n    table: order\n  sqlite_x: {kind: csv, path: a.csv}\nnodes: []\n"
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data", "sale.csv")
	mk := func(code, msg string) diag.Diagnostic {
		return diag.Diagnostic{File: data, Line: 1, Col: 1, Severity: diag.Error, Code: code, Message: msg, Fix: "fix it"}
	}
	tests := []struct {
		name      string
		in        diag.Diagnostic
		flow      string
		file      string
		line, col int
		msgSuffix string
	}{
		{"open moves to path", mk(sources.CodeOpen, `source "sales": cannot read the file: no such file`), flow, flow, 4, 28, " (data file " + data + ")"},
		{"table moves to table", mk(sources.CodeTable, `source "shop": no table "order"`), flow, flow, 8, 12, " (data file " + data + ")"},
		{"name moves to the key", mk(sources.CodeName, `source "sqlite_x": cannot be used as a table name`), flow, flow, 9, 3, " (data file " + data + ")"},
		{"kind moves to kind", mk(sources.CodeKind, `source "shop": kind "x"`), flow, flow, 6, 11, " (data file " + data + ")"},
		{"field not written: the key", mk(sources.CodeMask, `source "shop": mask_columns names "x"`), flow, flow, 5, 3, " (data file " + data + ")"},
		{"sqlite stays, names the entry", mk(sources.CodeSQLite, `source "shop": not a database`), flow, data, 1, 1, " (declared at " + flow + ":5:3)"},
		{"unknown entry unchanged", mk(sources.CodeOpen, `source "gone": cannot read the file`), flow, data, 1, 1, ""},
		{"no source prefix unchanged", mk(sources.CodeRagged, `data row 1 has 1 fields`), flow, data, 1, 1, ""},
		{"unreadable flow unchanged", mk(sources.CodeOpen, `source "sales": x`), filepath.Join(dir, "nope.yml"), data, 1, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := placeSourceDiag(tt.in, tt.flow)
			if got.File != tt.file || got.Line != tt.line || got.Col != tt.col {
				t.Errorf("at %s:%d:%d, want %s:%d:%d", got.File, got.Line, got.Col, tt.file, tt.line, tt.col)
			}
			if want := tt.in.Message + tt.msgSuffix; got.Message != want {
				t.Errorf("message %q, want %q", got.Message, want)
			}
			if got.Code != tt.in.Code || got.Fix != tt.in.Fix {
				t.Errorf("code or fix changed: %+v", got)
			}
		})
	}
}
