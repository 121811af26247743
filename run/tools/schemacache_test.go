package tools

import (
	"encoding/json"
	"sync"
	"testing"
)

// TestCompiledSchemaIsSharedAndStillValidates checks that a schema
// compiled once serves every later registration (and concurrent
// validations) with the same verdicts: a hostile model's bad arguments are
// refused through the shared schema exactly as through a fresh one.
func TestCompiledSchemaIsSharedAndStillValidates(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []string{"sql"},
		"properties": map[string]any{"sql": map[string]any{"type": "string"}}, "additionalProperties": false}
	a, err := compileSchema("cache_probe", schema)
	if err != nil {
		t.Fatal(err)
	}
	b, err := compileSchema("cache_probe", schema)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("the same tool and schema were compiled twice")
	}
	other, err := compileSchema("cache_probe", map[string]any{"type": "object"})
	if err != nil {
		t.Fatal(err)
	}
	if other == a {
		t.Error("a different schema under the same tool name got the cached one")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.validate(json.RawMessage(`{"sql":"SELECT 1"}`)); err != nil {
				t.Errorf("good arguments refused: %v", err)
			}
			if err := b.validate(json.RawMessage(`{"sql":1,"drop":true}`)); err == nil {
				t.Error("bad arguments accepted through the shared schema")
			}
			if err := other.validate(json.RawMessage(`{"sql":1,"drop":true}`)); err != nil {
				t.Errorf("the permissive schema refused: %v", err)
			}
		}()
	}
	wg.Wait()
}
