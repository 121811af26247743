package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParseScript checks that no script file makes the parser panic, that
// every rejection is a positioned diagnostic with a code and a fix, and
// that an accepted script answers every call without panicking.
func FuzzParseScript(f *testing.F) {
	files, _ := filepath.Glob("testdata/script/*")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, diags := ParseScript("f.yml", data)
		for _, d := range diags {
			if d.Code == "" || d.Message == "" || d.Fix == "" || d.Line < 0 || d.Col < 0 || d.File != "f.yml" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if s == nil {
			if !diags.HasErrors() {
				t.Fatal("no script and no error")
			}
			return
		}
		ids := []string{"unknown"}
		for id := range s.Nodes {
			ids = append(ids, id)
		}
		for _, id := range ids {
			for call := 0; call < 3; call++ {
				var pieces strings.Builder
				resp, err := s.Complete(context.Background(), Request{Node: id, Call: call}, func(p string) { pieces.WriteString(p) })
				if err == nil && pieces.String() != resp.Text {
					t.Fatalf("streamed %q, text %q", pieces.String(), resp.Text)
				}
				for _, tc := range resp.ToolCalls {
					if !json.Valid(tc.Args) {
						t.Fatalf("tool call args %q are not JSON", tc.Args)
					}
				}
			}
		}
	})
}

// FuzzMockSchema checks that any JSON schema yields JSON text (or a clean
// error) from the mock, quickly.
func FuzzMockSchema(f *testing.F) {
	files, _ := filepath.Glob("testdata/schemas/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var schema map[string]any
		if json.Unmarshal(data, &schema) != nil || schema == nil {
			return
		}
		start := time.Now()
		resp, err := NewMock(Options{}).Complete(context.Background(), Request{Node: "n", OutputSchema: schema}, nil)
		if err != nil {
			return
		}
		if !json.Valid([]byte(resp.Text)) {
			t.Fatalf("not JSON: %q", resp.Text)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("took %v", d)
		}
	})
}
