package bench

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{5}, Spread{5, 5, 5, 1}},
		{[]float64{3, 1, 2}, Spread{1, 2, 3, 3}},
		{[]float64{4, 1, 3, 2}, Spread{1, 2.5, 4, 4}},
	}
	for _, tt := range tests {
		if got := Summarize(tt.in); got != tt.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestRatios(t *testing.T) {
	got := Ratios([]float64{6, 4, 9}, []float64{2, 0, 3, 7})
	if len(got) != 2 || got[0] != 3 || got[1] != 3 {
		t.Fatalf("Ratios = %v, want [3 3] (zero floor left out, extra floor ignored)", got)
	}
}

func TestFitExponent(t *testing.T) {
	pow := func(k float64) ([]float64, []float64) {
		xs := []float64{1e3, 1e3, 1e4, 1e5}
		ys := make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = 7 * math.Pow(x, k)
		}
		return xs, ys
	}
	for _, k := range []float64{0.5, 1, 1.3, 2} {
		xs, ys := pow(k)
		if got := FitExponent(xs, ys); math.Abs(got-k) > 1e-9 {
			t.Errorf("FitExponent of x^%v = %v", k, got)
		}
	}
	if got := FitExponent([]float64{10, 10}, []float64{1, 2}); !math.IsNaN(got) {
		t.Errorf("one distinct x gives %v, want NaN", got)
	}
	if got := FitExponent([]float64{0, 10, 100}, []float64{5, 1, 10}); math.Abs(got-1) > 1e-9 {
		t.Errorf("a zero x must be ignored, got %v", got)
	}
}

func TestReplaceSection(t *testing.T) {
	tests := []struct {
		name, doc, want string
		err             bool
	}{
		{"replace", "# T\n\n" + BeginMarker + "\nold\n" + EndMarker + "\n\n## Keep\n", "# T\n\n" + BeginMarker + "\nnew\n" + EndMarker + "\n\n## Keep\n", false},
		{"insert after title", "# T\nintro\n", "# T\n\n" + BeginMarker + "\nnew\n" + EndMarker + "\nintro\n", false},
		{"reversed", EndMarker + "\n" + BeginMarker + "\n", "", true},
		{"twice", BeginMarker + EndMarker + BeginMarker + EndMarker, "", true},
		{"begin only", "# T\n" + BeginMarker + "\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplaceSection(tt.doc, "new\n")
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if got != tt.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestNarrative(t *testing.T) {
	a, b := Narrative(1<<16), Narrative(1<<16)
	if a != b {
		t.Fatal("Narrative is not deterministic")
	}
	if len(a) < 1<<16 || len(a) > 1<<16+300 {
		t.Fatalf("Narrative(65536) has %d bytes", len(a))
	}
	if !strings.Contains(a, "%") || !strings.Contains(a, "万") {
		t.Fatal("Narrative lacks the number forms it should mix")
	}
}

func TestBlob(t *testing.T) {
	x, y, z := make([]byte, 4096), make([]byte, 4096), make([]byte, 4096)
	Blob(1, x)
	Blob(1, y)
	Blob(2, z)
	if string(x) != string(y) || string(x) == string(z) {
		t.Fatal("Blob must be deterministic per index and differ between indexes")
	}
}

func TestFlowsShape(t *testing.T) {
	tests := []struct {
		name  string
		data  []byte
		nodes int
	}{
		{"compile", CompileFlow(50), 50},
		{"chain", ChainFlow(20), 20},
		{"fan", FanFlow(20), 20},
	}
	for _, tt := range tests {
		if got := strings.Count(string(tt.data), "  - id: "); got != tt.nodes {
			t.Errorf("%s flow has %d nodes, want %d", tt.name, got, tt.nodes)
		}
	}
}

// TestWriteRun checks the generated run is what the verify benchmark
// needs: a sealed, intact chain whose seal covers every blob.
func TestWriteRun(t *testing.T) {
	dir := t.TempDir()
	g, err := WriteRun(dir, RunSpec{ID: "bench-t", Events: 41, Blobs: 7, BlobSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(g.Dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	evs, probs, torn, err := chain.ParseLog("events.jsonl", b)
	if err != nil || len(probs) > 0 || torn != nil {
		t.Fatalf("log: %v %v %v", err, probs, torn)
	}
	if len(evs) != 41 || int64(len(b)) != g.LogBytes {
		t.Fatalf("%d events, %d bytes (recorded %d)", len(evs), len(b), g.LogBytes)
	}
	if ps := chain.VerifyChain("bench-t", evs); len(ps) > 0 {
		t.Fatalf("chain: %v", ps)
	}
	s, err := chain.ComputeSeal("bench-t", "b3:"+strings.Repeat("0", 64), evs)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Artifacts) != 7 {
		t.Fatalf("seal covers %d artifacts, want 7", len(s.Artifacts))
	}
	for i := range 7 {
		id := blobID(i, 1000)
		if _, err := os.Stat(filepath.Join(g.Artifacts, id.Hex()[:2], id.Hex()[2:])); err != nil {
			t.Errorf("blob %d: %v", i, err)
		}
	}
	if g.BlobBytes < 7000 || !strings.HasPrefix(g.Seal, "b3:") {
		t.Fatalf("generated run: %+v", g)
	}
	if _, err := WriteRun(t.TempDir(), RunSpec{ID: "x", Events: 3}); err == nil {
		t.Fatal("a run of 3 events must be refused")
	}
}

func TestDescribe(t *testing.T) {
	m := Describe(t.TempDir())
	if m.Cores < 1 || m.Go == "" || m.FS == "" {
		t.Fatalf("Describe = %+v", m)
	}
}
