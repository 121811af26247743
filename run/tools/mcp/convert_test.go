package mcp

import (
	"reflect"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name  string
		res   *sdk.CallToolResult
		text  string
		value any
	}{
		{"empty", &sdk.CallToolResult{}, "", nil},
		{"texts joined", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, "a\n\nb", nil},
		{"json text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: " [1, 2] "}}}, " [1, 2] ", []any{1.0, 2.0}},
		{"structured wins over text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "3 rows"}}, StructuredContent: map[string]any{"rows": 3}},
			"3 rows", map[string]any{"rows": 3.0}},
		{"structured alone", &sdk.CallToolResult{StructuredContent: map[string]any{"b": 1, "a": []int{2}}}, `{"a":[2],"b":1}`, map[string]any{"a": []any{2.0}, "b": 1.0}},
		{"binary described", &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)},
			&sdk.ResourceLink{Name: "report", URI: "file:///r.pdf"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://note", Text: "the note"}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://blob", MIMEType: "application/zip", Blob: make([]byte, 7)}},
		}}, "[audio audio/wav, 10 bytes, not shown]\n\n[resource report file:///r.pdf]\n\nthe note\n\n[resource mem://blob application/zip, 7 bytes, not shown]", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convert(tt.res)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.text || !reflect.DeepEqual(got.Value, tt.value) {
				t.Errorf("convert = text %q value %#v\nwant text %q value %#v", got.Text, got.Value, tt.text, tt.value)
			}
		})
	}
}
