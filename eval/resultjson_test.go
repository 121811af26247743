package eval

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encoderJSON is the reference WriteJSON must equal: the whole result
// through one json.Encoder.
func encoderJSON(t testing.TB, r *Result) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteJSONEqualsEncoder(t *testing.T) {
	tricky := CaseResult{
		Question: `q "cases": null` + "\n", Variant: "<b>&amp;</b>", Repeat: 2, Kind: "sql", Pass: false,
		Reason: "  \"cases\": null,", Expected: []float64{1, 2.5, -0}, Answered: []float64{}, Missing: []float64{2.5},
		ExpectedSQL: "SELECT 1", AnswerSQL: []string{"SELECT 2", "\u2028"}, Answer: "€ 12,5 <script>",
		Status: "failed", Tier: "none", KeyPoints: []KeyPoint{{}}, Tokens: 7, CostUSD: 0.25, Millis: 1.5,
		Run: "r", Seal: "b3:x", Address: "a",
	}
	plain := CaseResult{Question: "q1", Variant: "base", Kind: "sql", Pass: true, Status: "succeeded", Tier: "formal", Traceable: true}
	for _, tc := range []struct {
		name string
		res  Result
	}{
		{"nil cases", Result{Format: 1, Eval: "e", Status: "complete"}},
		{"no cases", Result{Format: 1, Status: "complete", Cases: []CaseResult{}, Questions: []string{}, Pairs: []Pair{}}},
		{"one case", Result{Format: 1, Status: "complete", Cases: []CaseResult{plain}, Shard: &Shard{Index: 1, Count: 2}}},
		{"cases that spell the marker", Result{Format: 1, Name: "\n  \"cases\": null", Cases: []CaseResult{tricky, plain, tricky},
			Questions: []string{"q1"}, Summary: []VariantSummary{{}}, Baseline: &Comparison{}, Seal: "b3:s", Exit: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := WriteJSON(&got, &tc.res); err != nil {
				t.Fatal(err)
			}
			if want := encoderJSON(t, &tc.res); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("WriteJSON differs from json.Encoder\n got: %s\nwant: %s", got.Bytes(), want)
			}
		})
	}
}

// FuzzWriteJSONEqualsEncoder checks the streamed result against the
// encoder on results whose strings come from the fuzzer.
func FuzzWriteJSONEqualsEncoder(f *testing.F) {
	f.Add("q", "v", "answer", "name", 2)
	f.Add("\n  \"cases\": null", "<&>", "\u2028\x00", "\xff", 0)
	f.Fuzz(func(t *testing.T, q, v, answer, name string, n int) {
		n = n % 5
		if n < 0 {
			n = -n
		}
		r := Result{Name: name, Eval: q, Questions: []string{q}}
		for i := 0; i < n; i++ {
			r.Cases = append(r.Cases, CaseResult{Question: q, Variant: v, Repeat: i, Answer: answer, AnswerSQL: []string{v}})
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, &r); err != nil {
			t.Fatal(err)
		}
		if want := encoderJSON(t, &r); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("WriteJSON differs from json.Encoder\n got: %q\nwant: %q", got.Bytes(), want)
		}
	})
}
