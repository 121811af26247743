package canon

import "testing"

// eventData is the data of a typical node.finished event, already in
// canonical form, as events.jsonl holds it and as verifiers re-check it.
var eventData = []byte(`{"artifacts":["b3:5a4f3c2e1d0b9a8f7e6d5c4b3a29180f1e2d3c4b5a69788796a5b4c3d2e1f001"],"elapsed_ms":12,"output":{"rows":[{"amount":1234.5,"region":"north"},{"amount":-17,"region":"south"}],"text":"Revenue was 1,234 yuan — up 8.7%."},"type":"transform","vars":{"x":41}}`)

// BenchmarkCanonicalizeCanonical re-canonicalises bytes that are canonical
// already: what every reader of the event log does for every event.
func BenchmarkCanonicalizeCanonical(b *testing.B) {
	if c, err := canonicalizeSlow(eventData); err != nil || string(c) != string(eventData) {
		b.Fatalf("the benchmark's data is not canonical: %s %v", c, err)
	}
	b.SetBytes(int64(len(eventData)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonicalize(eventData); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalEventData encodes a node.finished payload as the engine
// does for every event it appends.
func BenchmarkMarshalEventData(b *testing.B) {
	v := map[string]any{"output": 41, "vars": map[string]any{"x": 41}, "type": "transform", "elapsed_ms": 12,
		"text": "Revenue was 1,234 yuan — up 8.7%."}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanonicalizeCanonicalSlow is the same through the decode and
// re-write path that text which is not canonical takes.
func BenchmarkCanonicalizeCanonicalSlow(b *testing.B) {
	b.SetBytes(int64(len(eventData)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canonicalizeSlow(eventData); err != nil {
			b.Fatal(err)
		}
	}
}
