package render

import "testing"

// TestMayFeedReport: node.finished data is kept for the renderer whenever
// it may hold one of the keys the renderer reads, escaped spellings
// included; only data that certainly holds none of them is left out.
func TestMayFeedReport(t *testing.T) {
	for _, c := range []struct {
		data string
		keep bool
	}{
		{`{"elapsed_ms":3,"output":1,"vars":{"x":1}}`, false},
		{`{"artifacts":["b3:00"],"output":1}`, false},
		{``, false},
		{`null`, false},
		{`{"metrics_artifact":"b3:00","output":{}}`, true},
		{`{"output":{},"report_artifact":"b3:00"}`, true},
		{`{"contract":{"tier":"degraded"},"output":{}}`, true},
		{`{ "contract" : {"tier":"formal"} }`, true},
		// escaped keys decode to the same names
		{`{"metrics\u005fartifact":"b3:00"}`, true},
		{`{"contr\u0061ct":{"tier":"degraded"}}`, true},
		{`{"output":"a \"quoted\" word"}`, true},
		// nested keys or values that spell a key are kept too (harmless)
		{`{"output":{"metrics_artifact":"x"}}`, true},
		{`{"output":"contract"}`, true},
		// keys differing in case are other keys
		{`{"Contract":{"tier":"degraded"},"Metrics_Artifact":"b3:00"}`, false},
	} {
		if got := mayFeedReport([]byte(c.data)); got != c.keep {
			t.Errorf("mayFeedReport(%s) = %v, want %v", c.data, got, c.keep)
		}
	}
}
