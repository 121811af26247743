package provider

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	clearRemoteEnv(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.yml"), []byte("default: hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec     string
		wantName string
		wantErr  error
		errHas   []string
	}{
		{"", "mock", nil, nil},
		{"mock", "mock", nil, nil},
		{" mock ", "mock", nil, nil},
		{"script:s.yml", "script", nil, nil},
		{"script:" + filepath.Join(dir, "s.yml"), "script", nil, nil},
		{"script:", "", ErrUnknownProvider, []string{"needs a file"}},
		{"script:missing.yml", "", nil, []string{CodeScriptRead, "missing.yml"}},
		{"openai", "", ErrMissingKey, []string{"OPENAI_API_KEY"}},
		{"anthropic", "", ErrMissingKey, []string{"ANTHROPIC_API_KEY"}},
		{"mokc", "", ErrUnknownProvider, []string{`did you mean "mock"`}},
		{"scrpt", "", ErrUnknownProvider, []string{`did you mean "script:FILE"`}},
		{"gemini", "", ErrUnknownProvider, []string{"mock, script:FILE, openai, anthropic"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			p, err := New(tt.spec, Options{BaseDir: dir})
			if tt.wantName != "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Name() != tt.wantName {
					t.Errorf("name %q, want %q", p.Name(), tt.wantName)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error, got provider %s", p.Name())
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v is not %v", err, tt.wantErr)
			}
			for _, s := range tt.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestCallErrorRetryable(t *testing.T) {
	e := &CallError{Provider: "script", Node: "n", Call: 1, Message: "rate limited", Retryable: true}
	if !IsRetryable(e) || !IsRetryable(errors.Join(errors.New("x"), e)) {
		t.Error("a retryable CallError should be retryable, also when wrapped")
	}
	if IsRetryable(&CallError{}) || IsRetryable(errors.New("other")) || IsRetryable(nil) {
		t.Error("only retryable CallErrors are retryable")
	}
	if !strings.Contains(e.Error(), `node "n" call 1`) {
		t.Errorf("message %q", e.Error())
	}
}
