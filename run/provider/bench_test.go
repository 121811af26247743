package provider

import (
	"context"
	"testing"
)

// The eval harness budget (docs/performance.md) is 0.35 ms per question on the mock
// including the check; these show what the mock itself takes.

func BenchmarkMockPlain(b *testing.B) {
	m := NewMock(Options{Seed: 1})
	req := Request{Node: "answer", Kind: KindLLM, System: "Answer briefly.", Messages: userMsg("What drove weekly sales growth in the north region?")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req.Call = i
		if _, err := m.Complete(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMockSchema(b *testing.B) {
	m := NewMock(Options{Seed: 1})
	schema := map[string]any{"type": "object", "required": []any{"label", "confidence"}, "properties": map[string]any{
		"label": map[string]any{"enum": []any{"billing", "technical", "other"}}, "confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1}}}
	req := Request{Node: "classify", Kind: KindLLM, OutputSchema: schema, Messages: userMsg("my invoice was charged twice")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req.Call = i
		if _, err := m.Complete(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMockReport(b *testing.B) {
	m := NewMock(Options{Seed: 1})
	req := Request{Node: "brief", Kind: KindReport, Messages: userMsg("Write the weekly brief"), Evidence: &Evidence{
		Metrics: []EvidenceMetric{{Name: "gmv"}, {Name: "orders"}}, Inputs: []string{"week"},
		Snapshots: []EvidenceSnapshot{{ID: "Q1", Columns: []string{"region", "gmv"}, Rows: 5}},
		Knowledge: []EvidenceHit{{ID: "K1", Text: "Returns fell after the new policy took effect in March."}}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req.Call = i
		if _, err := m.Complete(context.Background(), req, func(string) {}); err != nil {
			b.Fatal(err)
		}
	}
}
