package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// fixtureRun builds the sealed fixture run once per option set and
// returns a private copy of its data dir, so tests may damage it.
func fixtureRun(t testing.TB, o evfixture.Options) *evfixture.Run {
	t.Helper()
	dir := t.TempDir()
	r, err := evfixture.Build(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	bundleOnce  sync.Once
	bundleBytes []byte
	bundleErr   error
	bundleRun   *evfixture.Run
)

// fixtureBundle is the bundle.html of the fixture run (built once).
func fixtureBundle(t testing.TB) ([]byte, *evfixture.Run) {
	t.Helper()
	bundleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentlab-bundle-")
		if err != nil {
			bundleErr = err
			return
		}
		r, err := evfixture.Build(dir, evfixture.Options{})
		if err != nil {
			bundleErr = err
			return
		}
		var buf bytes.Buffer
		bundleErr = WriteBundle(&buf, r.Dir, BundleOptions{})
		bundleBytes, bundleRun = buf.Bytes(), r
	})
	if bundleErr != nil {
		t.Fatal(bundleErr)
	}
	return append([]byte{}, bundleBytes...), bundleRun
}

func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBundleVerifies(t *testing.T) {
	b, r := fixtureBundle(t)
	res, err := VerifyBundle(b, Options{Expect: r.Seal})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		t.Logf("%-10s %v %s", c.Name, c.OK, c.Detail)
	}
	if !res.OK || res.Seal != r.Seal {
		t.Fatalf("untouched bundle does not verify")
	}
	res, err = Verify(r.Dir, Options{Expect: r.Seal})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		t.Logf("dir %-10s %v %s", c.Name, c.OK, c.Detail)
	}
	if !res.OK {
		t.Fatal("run dir does not verify")
	}
}

// TestBundleMakesNoRequests: the bundle forbids every request by its
// Content-Security-Policy and, outside the embedded JSON data, names no
// URL and loads nothing (no src, href, url(), @import, fetch).
func TestBundleMakesNoRequests(t *testing.T) {
	b, _ := fixtureBundle(t)
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-[A-Za-z0-9+/=]{44}&#39;; style-src &#39;sha256-[A-Za-z0-9+/=]{44}&#39;; img-src data:; base-uri &#39;none&#39;; form-action &#39;none&#39;">`)
	if n := len(csp.FindAll(b, -1)); n != 1 {
		t.Fatalf("the bundle has %d Content-Security-Policy meta elements of the expected form, want 1", n)
	}
	outside := regexp.MustCompile(`(?s)<script type="application/json"[^>]*>.*?</script>`).ReplaceAll(b, nil)
	for _, bad := range []string{"http://", "https://", "//cdn", " src=", " href=", "url(", "@import", "fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon", "import("} {
		if i := bytes.Index(outside, []byte(bad)); i >= 0 {
			t.Errorf("the bundle names %q outside its data: %q", bad, outside[max(0, i-40):min(len(outside), i+40)])
		}
	}
}

// TestBundleScriptStaysInItsElement: the inline script never holds the
// text that would end its element early or open a comment the parser
// reads differently (the renderer writes "<\/script>").
func TestBundleScriptStaysInItsElement(t *testing.T) {
	s := strings.ToLower(BundleScript())
	for _, bad := range []string{"</script", "<!--"} {
		if i := strings.Index(s, bad); i >= 0 {
			t.Errorf("the bundle script holds %q: %q", bad, s[max(0, i-40):min(len(s), i+40)])
		}
	}
}
