package tmpl

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestRenderCacheSharedSafely renders one cached template from many
// goroutines with different environments (run it with -race): each gets
// its own result, and a filter never changes what the next render sees.
func TestRenderCacheSharedSafely(t *testing.T) {
	src := `{{ input.q | upper }} {{ vars.list | join(", ") }} {{ input.missing | default("none") }}`
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				env := map[string]any{"input": map[string]any{"q": fmt.Sprintf("q%d-%d", i, j)}, "vars": map[string]any{"list": []any{"b", "a", j}}}
				got, err := Render(src, env)
				want := fmt.Sprintf("Q%d-%d b, a, %d none", i, j, j)
				if err != nil || got != want {
					t.Errorf("Render = %q, %v; want %q", got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestRenderCacheBounded: sources beyond the cache's bounds (too many, or
// too long) render exactly as cached ones, and a template with an error is
// an error every time, never a cached success.
func TestRenderCacheBounded(t *testing.T) {
	env := map[string]any{"input": map[string]any{"n": 7}}
	for i := range maxCachedTemplates + 10 {
		src := fmt.Sprintf("%d:{{ input.n }}", i)
		if got, err := Render(src, env); err != nil || got != fmt.Sprintf("%d:7", i) {
			t.Fatalf("Render(%q) = %q, %v", src, got, err)
		}
	}
	if n := templateCacheSize.Load(); n > maxCachedTemplates {
		t.Fatalf("the cache holds %d templates, over its bound %d", n, maxCachedTemplates)
	}
	long := strings.Repeat("x", maxCachedTemplateLen) + "{{ input.n }}"
	for range 2 {
		if got, err := Render(long, env); err != nil || !strings.HasSuffix(got, "x7") {
			t.Fatalf("long template: %v", err)
		}
	}
	if _, ok := templateCache.Load(long); ok {
		t.Error("a template over the length bound was cached")
	}
	for range 2 {
		if _, err := Render("{{ input.n ", env); err == nil {
			t.Fatal("an unclosed tag rendered")
		}
	}
}
