package provider

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkOpenAIDecode reads a 500-chunk answer, to keep stream parsing
// far below the time a model takes to produce it.
func BenchmarkOpenAIDecode(b *testing.B) {
	var sb strings.Builder
	for i := range 500 {
		fmt.Fprintf(&sb, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word%d \"}}]}\n\n", i)
	}
	sb.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	stream := sb.String()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		res := &streamResult{}
		if err := (&openaiProto{}).decode(newSSEReader(strings.NewReader(stream)), res, func(string) {}); err != nil {
			b.Fatal(err)
		}
	}
}
