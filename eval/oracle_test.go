package eval

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/eval/suite"
)

// TestSourceOracle computes expectations over testdata/qa/data/sales.csv
// (1200.50 + 800 + 299.5 in 2026-W47, 950 in 2026-W48; customer masked).
func TestSourceOracle(t *testing.T) {
	p, l := CompileFlow(filepath.Join("testdata", "qa", "flow.yml"))
	if p == nil {
		t.Fatal(l)
	}
	o, err := NewSourceOracle(context.Background(), p, filepath.Join("testdata", "qa"))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	tests := []struct {
		sql  string
		want []float64
		err  string
	}{
		{"SELECT SUM(amount) FROM sales WHERE week = '2026-W47'", []float64{2300}, ""},
		{"SELECT COUNT(*) FROM sales GROUP BY week ORDER BY week", []float64{3, 1}, ""},
		{"SELECT customer FROM sales", nil, "masked"},
		{"SELECT region FROM sales", nil, "not a number"},
		{"SELECT region, amount FROM sales", nil, "2 columns"},
		{"SELECT MAX(amount) FROM sales WHERE week = 'none'", nil, "NULL"},
		{"SELECT amount FROM sales WHERE 0", nil, ""},
		{"DELETE FROM sales", nil, "E-SQL"},
	}
	for _, tt := range tests {
		q := &suite.Question{ID: "q", Expect: suite.Expect{Kind: suite.KindSQL, SQL: tt.sql}}
		e := o.Expected(context.Background(), q)
		if tt.err != "" {
			if e.Err == nil || !strings.Contains(e.Err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.sql, e.Err, tt.err)
			}
			continue
		}
		if e.Err != nil || !reflect.DeepEqual(e.Values, tt.want) {
			t.Errorf("%s: %v %v, want %v", tt.sql, e.Values, e.Err, tt.want)
		}
	}
}
