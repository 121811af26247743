package expr

import (
	"reflect"
	"testing"
)

// TestUntracedMetricsFromALiteralOrAModel: a metric written as a literal,
// one computed from a model's text, and everything derived from them do
// not trace to data; cells of a snapshot and declared inputs do.
func TestUntracedMetricsFromALiteralOrAModel(t *testing.T) {
	snap := func(n string) bool { return n == "pull" }
	got := Untraced(map[string]string{
		"gmv":       "sum(col(nodes.pull, 'gmv'))",
		"orders":    "rows(nodes.pull)",
		"avg":       "round(gmv / orders, 2)",
		"target":    "input.target * 2",
		"fixed":     "35000",
		"from_text": "len(nodes.head.text)",
		"lifted":    "gmv + fixed",
		"ratio":     "lifted / gmv",
		"variable":  "vars.x + gmv",
		"broken":    "sum(",
	}, snap)
	want := map[string]string{
		"fixed":     "it is a literal: it reads no query snapshot and no input",
		"from_text": "it reads nodes.head.text, which is not a query or merge snapshot",
		"lifted":    `it uses metric "fixed", which does not trace to data`,
		"ratio":     `it uses metric "lifted", which does not trace to data`,
		"variable":  "it reads vars.x, which is not data",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
