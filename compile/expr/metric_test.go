package expr

import (
	"reflect"
	"strings"
	"testing"
)

func evalMetric(t *testing.T, src string, env map[string]any, metrics map[string]float64) (float64, []Cell, error) {
	t.Helper()
	if issues := Check(src, Metric, testScope); hasError(issues) {
		t.Fatalf("Check(%q) = %+v", src, issues)
	}
	p, err := Compile(src, Metric)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	var cells []Cell
	v, err := p.EvalMetric(env, metrics, func(c Cell) { cells = append(cells, c) })
	return v, cells, err
}

func TestMetricTrace(t *testing.T) {
	gmv := []Cell{{"pull", 0, "gmv", 100}, {"pull", 1, "gmv", 50.5}, {"pull", 2, "gmv", 10}}
	cases := []struct {
		src   string
		want  float64
		cells []Cell
	}{
		{"sum(col(nodes.pull, 'gmv'))", 160.5, gmv},
		{"avg(col(nodes.pull, 'gmv'))", 53.5, gmv},
		{"max(col(nodes.pull, 'gmv')) - min(col(nodes.pull, 'gmv'))", 90, append(append([]Cell{}, gmv...), gmv...)},
		{"count(col(nodes.pull, 'orders'))", 2, []Cell{{"pull", 0, "orders", 4}, {"pull", 1, "orders", nil}, {"pull", 2, "orders", 1}}},
		{"cell(nodes.pull, 1, 'gmv') * 2", 101, []Cell{{"pull", 1, "gmv", 50.5}}},
		{"rows(nodes.pull)", 3, []Cell{{"pull", -1, "", 3}}},
		{"round(sum(col(nodes.pull, 'gmv')) / rows(nodes.pull), 2)", 53.5, append(append([]Cell{}, gmv...), Cell{"pull", -1, "", 3})},
		{"gmv / orders", 2.5, nil},
		{"abs(gmv - 110)", 10, nil},
		{"42", 42, nil},
	}
	for _, tc := range cases {
		got, cells, err := evalMetric(t, tc.src, testEnv(), map[string]float64{"gmv": 100, "orders": 40})
		if err != nil {
			t.Errorf("EvalMetric(%q): %v", tc.src, err)
			continue
		}
		if got != tc.want {
			t.Errorf("EvalMetric(%q) = %v, want %v", tc.src, got, tc.want)
		}
		if !reflect.DeepEqual(cells, tc.cells) {
			t.Errorf("EvalMetric(%q) traced %+v, want %+v", tc.src, cells, tc.cells)
		}
	}
}

// TestMetricShortCircuitTrace: a cell that is not read is not traced.
func TestMetricShortCircuitTrace(t *testing.T) {
	_, cells, err := evalMetric(t, "gmv > 0 ? cell(nodes.pull, 0, 'gmv') : cell(nodes.pull, 2, 'gmv')", testEnv(), map[string]float64{"gmv": 1})
	if err != nil || len(cells) != 1 || cells[0].Row != 0 {
		t.Fatalf("cells = %+v, %v", cells, err)
	}
}

// TestMetricSnapshotShapes accepts the Go types an engine may hand over:
// []map[string]any rows, []string columns, rows as lists in column order,
// and a snapshot without a node field (named from the reference).
func TestMetricSnapshotShapes(t *testing.T) {
	shapes := map[string]map[string]any{
		"typed": {"node": "pull", "columns": []string{"gmv"}, "rows": []map[string]any{{"gmv": 1}, {"gmv": 2}}},
		"lists": {"node": "pull", "columns": []any{"region", "gmv"}, "rows": []any{[]any{"n", 1}, []any{"s", 2}}},
		"noid":  {"columns": []any{"gmv"}, "rows": []any{map[string]any{"gmv": 1}, map[string]any{"gmv": 2}}},
		"nocol": {"node": "pull", "rows": []any{map[string]any{"gmv": 1}, map[string]any{"gmv": 2}}},
	}
	for name, snap := range shapes {
		env := map[string]any{"nodes": map[string]any{"pull": snap}}
		got, cells, err := evalMetric(t, "sum(col(nodes.pull, 'gmv'))", env, nil)
		want := []Cell{{"pull", 0, "gmv", 1}, {"pull", 1, "gmv", 2}}
		if err != nil || got != 3 || !reflect.DeepEqual(cells, want) {
			t.Errorf("%s: got %v, %+v, %v", name, got, cells, err)
		}
	}
}

func TestMetricErrors(t *testing.T) {
	truncated := pullSnapshot()
	truncated["truncated"] = true
	cases := []struct {
		src  string
		env  map[string]any
		want string
	}{
		{"sum(col(nodes.pull, 'gvm'))", testEnv(), `has no column "gvm" (did you mean "gmv"?)`},
		{"cell(nodes.pull, 3, 'gmv')", testEnv(), "row 3 is out of range"},
		{"cell(nodes.pull, -1, 'gmv')", testEnv(), "row -1 is out of range"},
		{"sum(col(nodes.pull, 'region'))", testEnv(), "sum: item 0 is a string, not a number"},
		{"cell(nodes.pull, 0, 'region')", testEnv(), "is a string, not a number"},
		{"sum(col(nodes.pull, 'gmv'))", map[string]any{"nodes": map[string]any{"pull": truncated}}, "truncated"},
		{"rows(nodes.pull)", map[string]any{"nodes": map[string]any{"pull": truncated}}, "truncated"},
		{"rows(nodes.pull)", map[string]any{"nodes": map[string]any{"pull": "text"}}, "needs a snapshot"},
		{"rows(nodes.pull)", map[string]any{"nodes": map[string]any{"pull": map[string]any{"text": "x"}}}, "has no rows"},
		{"rows(nodes.pull)", map[string]any{}, "needs a snapshot"},
		{"gmv + orders", testEnv(), `metric "orders" has no value here`},
		{"sum(col(nodes.pull, 'gmv')) / (gmv - gmv)", testEnv(), "division by zero"},
	}
	for _, tc := range cases {
		_, _, err := evalMetric(t, tc.src, tc.env, map[string]float64{"gmv": 1})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EvalMetric(%q) error = %v, want %q", tc.src, err, tc.want)
		}
	}
	// cell() of a truncated snapshot is fine: that row was returned.
	if v, _, err := evalMetric(t, "cell(nodes.pull, 0, 'gmv')", map[string]any{"nodes": map[string]any{"pull": truncated}}, nil); err != nil || v != 100 {
		t.Errorf("cell of truncated snapshot = %v, %v", v, err)
	}
}

func TestMetricOutsideMetricContext(t *testing.T) {
	p, err := Compile("vars.gate", Transform)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.EvalMetric(testEnv(), nil, nil); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Fatalf("EvalMetric on text = %v", err)
	}
}
