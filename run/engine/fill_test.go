package engine

import (
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
)

// TestFillSeeMarkers: the report's filled text (its output "text") drops a
// see marker together with the space it would strand before punctuation,
// and leaves one space between words, as the HTML report does.
func TestFillSeeMarkers(t *testing.T) {
	c := &citable{
		metrics: map[string]*evidence.MetricValue{"gmv": metricFromDef("gmv", plan.Metric{}, 2000)},
		mnames:  []string{"gmv"},
	}
	for _, tc := range []struct{ src, want string }{
		{"GMV rose [[see:m:gmv]].", "GMV rose."},
		{"GMV rose [[see:m:gmv]], then fell [[see:m:gmv]]; oddly [[see:m:gmv]]: yes [[see:m:gmv]]! no [[see:m:gmv]]?", "GMV rose, then fell; oddly: yes! no?"},
		{"销售额增长 [[see:m:gmv]]。利润 [[see:m:gmv]]，", "销售额增长。利润，"},
		{"GMV rose [[see:m:gmv]] sharply", "GMV rose sharply"},
		{"GMV was [[m:gmv]] [[see:m:gmv]].", "GMV was 2,000."},
		{"GMV [[see:m:gmv]][[m:gmv]]", "GMV 2,000"},
		// An unresolvable see marker is kept as written, and its space too.
		{"Sales grew [[see:m:gmv,Q1]].", "Sales grew [[see:m:gmv,Q1]]."},
		{"Sales grew [[see:Q1]] [[see:m:gmv]].", "Sales grew [[see:Q1]]."},
	} {
		if got := fill(tc.src, c); got != tc.want {
			t.Errorf("fill(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
