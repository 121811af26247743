package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newWorkspace builds a workspace with files, a link inside, links that
// lead out, and a secret file next to (outside) the workspace.
func newWorkspace(t *testing.T) *Workspace {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "docs", "deep"), 0o755))
	must(os.WriteFile(filepath.Join(base, "secret.txt"), []byte("TOP SECRET\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "notes.md"), []byte("alpha\nbeta gmv\ngamma\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "docs", "a.md"), []byte("GMV rose\nno match\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "docs", "deep", "b.txt"), []byte("gmv again\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "blob.bin"), []byte("gmv\x00\x01"), 0o644))
	must(os.Symlink("notes.md", filepath.Join(ws, "inside-link")))
	must(os.Symlink("../secret.txt", filepath.Join(ws, "out-rel")))
	must(os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(ws, "out-abs")))
	must(os.Symlink(base, filepath.Join(ws, "docs", "out-dir")))
	must(os.Symlink("/nonexistent/x", filepath.Join(ws, "dangling")))
	w, err := OpenWorkspace(ws)
	must(err)
	t.Cleanup(func() { w.Close() })
	return w
}

func call(t *testing.T, tool Tool, args string) (*Result, error) {
	t.Helper()
	r := NewRegistry()
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
	return r.Call(context.Background(), FromAgent, tool.Info().Name, json.RawMessage(args))
}

func TestJailRefusals(t *testing.T) {
	w := newWorkspace(t)
	tools := FileTools(w, FileLimits{})
	read, list, grep := tools[0], tools[1], tools[2]
	tests := []struct {
		name   string
		tool   Tool
		args   string
		reason string // substring of the recorded reason
	}{
		{"dotdot", read, `{"path":"../secret.txt"}`, `climbs out of the workspace with ..`},
		{"dotdot inside path", read, `{"path":"docs/../../secret.txt"}`, `climbs out of the workspace with ..`},
		{"absolute", read, `{"path":"/etc/passwd"}`, `is absolute`},
		{"home", read, `{"path":"~/.ssh/id_rsa"}`, `home directory (~)`},
		{"symlink relative out", read, `{"path":"out-rel"}`, `"out-rel" is a symbolic link that leads outside the workspace`},
		{"symlink absolute out", read, `{"path":"out-abs"}`, `"out-abs" is a symbolic link that leads outside the workspace`},
		{"through dir link", read, `{"path":"docs/out-dir/secret.txt"}`, `"docs/out-dir" is a symbolic link that leads outside`},
		{"dangling link", read, `{"path":"dangling"}`, `cannot be resolved`},
		{"list out via link", list, `{"path":"docs/out-dir"}`, `leads outside the workspace`},
		{"list dotdot", list, `{"path":".."}`, `climbs out`},
		{"grep out via link", grep, `{"pattern":"SECRET","path":"out-rel"}`, `leads outside`},
		{"grep absolute", grep, `{"pattern":"root","path":"/etc"}`, `is absolute`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, tt.tool, tt.args)
			var ref *Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("not refused: %v %+v", err, res)
			}
			if ref.Code != CodeJail || !strings.Contains(ref.Reason, tt.reason) || ref.Fix == "" {
				t.Errorf("refusal = %+v, want code %s reason containing %q", ref, CodeJail, tt.reason)
			}
			if strings.Contains(ref.Error(), "TOP SECRET") {
				t.Error("refusal leaks file content")
			}
		})
	}
	// Nothing outside the workspace shows up in a recursive grep or list.
	res, err := call(t, grep, `{"pattern":"SECRET"}`)
	if err != nil || strings.Contains(res.Text, "SECRET") {
		t.Errorf("grep over the workspace reached outside: %v %q", err, res.Text)
	}
	res, err = call(t, list, `{"recursive":true}`)
	if err != nil || strings.Contains(res.Text, "secret.txt") {
		t.Errorf("list reached outside: %v %q", err, res.Text)
	}
	t.Logf("RESULT path-escape-file-tools trials=%d", len(tests)+2)
}

func TestFileTools(t *testing.T) {
	w := newWorkspace(t)
	tools := FileTools(w, FileLimits{GrepResults: 2, ListEntries: 3})
	read, list, grep := tools[0], tools[1], tools[2]
	tests := []struct {
		name      string
		tool      Tool
		args      string
		want      string
		truncated bool
	}{
		{"read", read, `{"path":"notes.md"}`, "1: alpha\n2: beta gmv\n3: gamma\n", false},
		{"read via inside link", read, `{"path":"inside-link","offset":2,"limit":1}`, "2: beta gmv\n[truncated after line 2; call again with offset=3]\n", true},
		{"read dot-slash", read, `{"path":"./docs/a.md","limit":5}`, "1: GMV rose\n2: no match\n", false},
		{"list root capped", list, `{}`, "blob.bin\ndangling@\ndocs/\n[truncated at 3 entries; list a subdirectory]\n", true},
		{"list dir", list, `{"path":"docs","recursive":true}`, "docs/a.md\ndocs/deep/\ndocs/deep/b.txt\n[truncated at 3 entries; list a subdirectory]\n", true},
		{"grep capped", grep, `{"pattern":"gmv","ignore_case":true}`, "docs/a.md:1: GMV rose\ndocs/deep/b.txt:1: gmv again\n[truncated at 2 matches; narrow the pattern, path or glob]\n", true},
		{"grep glob", grep, `{"pattern":"gmv","glob":"*.md"}`, "notes.md:2: beta gmv\n", false},
		{"grep skips binary", grep, `{"pattern":"gmv","path":"blob.bin"}`, "no matches\n", false},
		{"grep nothing", grep, `{"pattern":"zzz"}`, "no matches\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tt.want || res.Truncated != tt.truncated {
				t.Errorf("got %q (truncated %v)\nwant %q", res.Text, res.Truncated, tt.want)
			}
		})
	}
}

func TestFileToolErrors(t *testing.T) {
	w := newWorkspace(t)
	tools := FileTools(w, FileLimits{})
	tests := []struct {
		name, args, code, reason string
		tool                     Tool
	}{
		{"missing file", `{"path":"nope.md"}`, CodeArgs, `"nope.md" does not exist`, tools[0]},
		{"directory", `{"path":"docs"}`, CodeArgs, "is a directory", tools[0]},
		{"binary", `{"path":"blob.bin"}`, CodeArgs, "binary file", tools[0]},
		{"schema: missing path", `{}`, CodeArgs, "missing property 'path'", tools[0]},
		{"schema: extra key", `{"path":"a","mode":"w"}`, CodeArgs, "additional properties 'mode' not allowed", tools[0]},
		{"schema: wrong type", `{"path":"a","offset":"2"}`, CodeArgs, "want integer", tools[0]},
		{"list a file", `{"path":"notes.md"}`, CodeArgs, "not a directory", tools[1]},
		{"bad regexp", `{"pattern":"(?<=a)b"}`, CodeArgs, "does not compile", tools[2]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, tt.tool, tt.args)
			var ref *Refusal
			if !errors.As(err, &ref) || ref.Code != tt.code || !strings.Contains(ref.Reason, tt.reason) {
				t.Errorf("err = %v, want %s containing %q", err, tt.code, tt.reason)
			}
		})
	}
}

// FuzzResolve: whatever the path, an accepted one stays inside the
// workspace once its links are resolved, and opening it through the root
// never reaches the file outside.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"notes.md", "../secret.txt", "out-rel", "docs/out-dir/secret.txt", "/etc/passwd", "~", "a/../../b", "docs/./deep/../a.md", "inside-link", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		w := newWorkspace(t)
		rel, err := w.resolve("fuzz", p)
		if err != nil {
			return
		}
		full := filepath.Join(w.dir, rel)
		if !within(w.dir, full) {
			t.Fatalf("%q accepted as %q, outside", p, rel)
		}
		if real, err := filepath.EvalSymlinks(full); err == nil && !within(w.dir, real) {
			t.Fatalf("%q resolves outside to %s", p, real)
		}
		if b, err := w.root.ReadFile(rel); err == nil && strings.Contains(string(b), "TOP SECRET") {
			t.Fatalf("%q read the outside file", p)
		}
	})
}
