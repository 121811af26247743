package retrieve

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestLoadDirCorpus(t *testing.T) {
	docs, err := LoadDir("testdata/corpus", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range docs {
		paths = append(paths, d.Path)
	}
	// Byte order of the slash paths; hidden files, hidden folders and
	// other extensions are skipped.
	want := []string{"billing.html", "glossary.txt", "policies/refunds.md", "policies/shipping.md", "zh/refund.md", "zh/shipping.md"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths = %q, want %q", paths, want)
	}
	html := docs[0].Text
	for _, gone := range []string{"<", "font-family", "var refund", "internal", "&amp;", "&nbsp;"} {
		if strings.Contains(html, gone) {
			t.Errorf("billing.html text still contains %q:\n%s", gone, html)
		}
	}
	for _, kept := range []string{"Billing & invoices", "payable within 14\u00a0days", "2% per month"} {
		if !Quote(html, kept) {
			t.Errorf("billing.html text lacks %q:\n%s", kept, html)
		}
	}
}

// write creates files (name → content) under a new temporary folder.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// codes returns the diagnostic codes of a *LoadError, in sorted order.
func codes(t *testing.T, err error) []string {
	t.Helper()
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not a *LoadError", err, err)
	}
	var out []string
	for _, d := range le.Diagnostics.Sorted() {
		if d.Line < 1 || d.Col < 1 || d.File == "" || d.Fix == "" || d.Message == "" {
			t.Errorf("diagnostic lacks a position, file, message or fix: %+v", d)
		}
		out = append(out, d.Code)
	}
	return out
}

func TestLoadDirErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opt   LoadOptions
		want  []string
		in    string // a message fragment
	}{
		{"empty folder", map[string]string{"a.png": "x", ".b.md": "x"}, LoadOptions{}, []string{CodeEmpty}, "no documents"},
		{"file too large", map[string]string{"a.md": strings.Repeat("x", 11), "b.md": "ok"}, LoadOptions{MaxFileBytes: 10}, []string{CodeFileSize}, "limit of 10 bytes"},
		{"total too large", map[string]string{"a.md": "123456", "b.md": "123456"}, LoadOptions{MaxTotalBytes: 10}, []string{CodeTotalSize}, "reached at b.md"},
		{"too many files", map[string]string{"a.md": "1", "b.md": "2", "c.txt": "3"}, LoadOptions{MaxFiles: 2}, []string{CodeFiles}, "3 documents"},
		{"bad utf-8", map[string]string{"a.md": "ok\nab\xffc", "b.txt": "\xfe"}, LoadOptions{}, []string{CodeEncoding, CodeEncoding}, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, tt.files)
			docs, err := LoadDir(dir, tt.opt)
			if err == nil {
				t.Fatalf("no error; docs %v", docs)
			}
			if got := codes(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("codes = %v, want %v\n%v", got, tt.want, err)
			}
			if !strings.Contains(err.Error(), tt.in) {
				t.Errorf("error %q lacks %q", err, tt.in)
			}
		})
	}
}

func TestLoadDirEncodingPosition(t *testing.T) {
	dir := write(t, map[string]string{"a.md": "line one\nab\xffc"})
	_, err := LoadDir(dir, LoadOptions{})
	var le *LoadError
	if !errors.As(err, &le) || len(le.Diagnostics) != 1 {
		t.Fatalf("err = %v", err)
	}
	if d := le.Diagnostics[0]; d.Line != 2 || d.Col != 3 {
		t.Errorf("position %d:%d, want 2:3", d.Line, d.Col)
	}
}

func TestLoadDirNotAFolder(t *testing.T) {
	dir := write(t, map[string]string{"a.md": "x"})
	for _, p := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "a.md")} {
		_, err := LoadDir(p, LoadOptions{})
		if got := codes(t, err); !reflect.DeepEqual(got, []string{CodeDir}) {
			t.Errorf("%s: codes %v, want [%s]", p, got, CodeDir)
		}
	}
}

func TestLoadDirNormalisesText(t *testing.T) {
	dir := write(t, map[string]string{"a.txt": "\xef\xbb\xbfone\r\ntwo\rthree", "B.HTM": "<p>x &lt; y</p>"})
	docs, err := LoadDir(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Doc{{Path: "B.HTM", Text: "x < y"}, {Path: "a.txt", Text: "one\ntwo\nthree"}}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("docs = %q, want %q", docs, want)
	}
}

func TestLoadDirSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	outside := write(t, map[string]string{"secret.md": "the secret refund code", "dir/x.md": "outside folder"})
	dir := write(t, map[string]string{"real/a.md": "inside text"})
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}

	// A link to a file inside the folder is read under the link's name; a
	// link to a folder inside is not followed (its files come by their
	// real path).
	link("real/a.md", "alias.md")
	link("real", "again")
	docs, err := LoadDir(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Doc{{Path: "alias.md", Text: "inside text"}, {Path: "real/a.md", Text: "inside text"}}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("docs = %q, want %q", docs, want)
	}

	// Links that leave the folder are refused, whatever they point at,
	// including through a relative "..", and nothing is returned.
	link(filepath.Join(outside, "secret.md"), "escape.md")
	link("../"+filepath.Base(outside)+"/dir", "escape-dir")
	link("missing.md", "broken.md")
	docs, err = LoadDir(dir, LoadOptions{})
	if docs != nil {
		t.Errorf("docs returned despite errors: %q", docs)
	}
	got := codes(t, err)
	if want := []string{CodeRead, CodeSymlink, CodeSymlink}; !reflect.DeepEqual(got, want) {
		t.Errorf("codes = %v, want %v\n%v", got, want, err)
	}
	if strings.Contains(err.Error(), "secret refund") {
		t.Errorf("error leaks the content of the outside file: %v", err)
	}
}

// TestLoadDirRootIsSymlink checks that a folder named through a symlink
// is fine: escape is judged against the real folder.
func TestLoadDirRootIsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := write(t, map[string]string{"kb/a.md": "alpha", "kb/b.md": "beta"})
	if err := os.Symlink("a.md", filepath.Join(dir, "kb", "c.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("kb", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	docs, err := LoadDir(filepath.Join(dir, "link"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3 || docs[2].Path != "c.md" || docs[2].Text != "alpha" {
		t.Errorf("docs = %q", docs)
	}
}
