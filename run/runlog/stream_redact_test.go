package runlog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/redact"
)

// TestStreamedArtifactFromAnEchoServerIsRedacted streams a large response
// of a server that echoes the request's credentials back, in every
// encoding run/redact knows and at every offset against the stream's
// reads, into the artifact store through PutArtifactReader (the path for
// payloads too big to buffer), and requires that no form of the secret is
// anywhere in the data directory.
func TestStreamedArtifactFromAnEchoServerIsRedacted(t *testing.T) {
	secret := "echo-me-s3cret/token+value"
	redact.Add(secret)
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + secret))
	redact.Add(basic)
	js, _ := json.Marshal(secret)
	forms := []string{
		secret,
		string(js[1 : len(js)-1]),
		url.QueryEscape(secret),
		url.PathEscape(secret),
		base64.StdEncoding.EncodeToString([]byte(secret)),
		base64.RawURLEncoding.EncodeToString([]byte(secret)),
		basic,
		"alice:" + secret,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		for i := 0; i < 20000; i++ { // ~4 MB, each form at shifting offsets
			fmt.Fprintf(w, "%s row %d: %s %s\n", strings.Repeat("p", i%97), i, forms[i%len(forms)], tok)
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	dir := t.TempDir()
	rl, err := Create(dir, "streamed")
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	id, n, err := rl.PutArtifactReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1<<20 {
		t.Fatalf("only %d bytes were streamed", n)
	}
	st, _ := rl.Store()
	if b, err := st.Get(id); err != nil || !bytes.Contains(b, []byte(redact.Mark)) {
		t.Fatalf("the stored artifact: %v (marks: %v)", err, bytes.Count(b, []byte(redact.Mark)))
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s holds the secret as %q", p, f)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
