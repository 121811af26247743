package runlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/redact"
)

// TestPutArtifactWriterStoresWhatPutArtifactStores: a document written
// through PutArtifactWriter, streamed or buffered, is stored under the id
// PutArtifact gives its bytes; a writer that fails stores nothing and
// says so; with a secret registered the document is redacted as
// PutArtifact redacts it.
func TestPutArtifactWriterStoresWhatPutArtifactStores(t *testing.T) {
	rl, err := Create(t.TempDir(), "w1")
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	doc := func(n int, extra string) func(io.Writer) error {
		return func(w io.Writer) error {
			io.WriteString(w, "[")
			for i := range n {
				if i > 0 {
					io.WriteString(w, ",")
				}
				fmt.Fprintf(w, `{"i":%d,"pad":"%s%s"}`, i, strings.Repeat("x", i%300), extra)
			}
			_, err := io.WriteString(w, "]")
			return err
		}
	}
	for _, n := range []int{0, 1, 5000} { // 5,000 items: far beyond the pipe's buffer
		var b bytes.Buffer
		doc(n, "")(&b)
		want, err := rl.PutArtifact(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for _, buffered := range []bool{false, true} {
			got, err := rl.putArtifactWriter(doc(n, ""), buffered)
			if err != nil || got != want {
				t.Errorf("%d items, buffered %v: %s %v, want %s", n, buffered, got, err, want)
			}
		}
	}
	boom := errors.New("boom")
	for _, buffered := range []bool{false, true} {
		_, err := rl.putArtifactWriter(func(w io.Writer) error {
			w.Write(bytes.Repeat([]byte("y"), 200<<10))
			return boom
		}, buffered)
		if !errors.Is(err, boom) {
			t.Errorf("buffered %v: a failing writer stored its document (%v)", buffered, err)
		}
	}
	secret := "artifact-writer-s3cret"
	redact.Add(secret)
	var b bytes.Buffer
	doc(3, secret)(&b)
	want, err := rl.PutArtifact(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, err := rl.PutArtifactWriter(doc(3, secret))
	if err != nil || got != want {
		t.Fatalf("with a secret registered: %s %v, want %s", got, err, want)
	}
	st, _ := rl.Store()
	stored, _ := st.Get(got)
	if bytes.Contains(stored, []byte(secret)) {
		t.Fatalf("the secret was stored: %s", stored)
	}
}

// TestCanonicalJSONEventDataRedacted: event data handed over as canonical
// bytes (the evaluation's case events) is redacted like any other data.
func TestCanonicalJSONEventDataRedacted(t *testing.T) {
	secret := "canonical-data-s3cret"
	redact.Add(secret)
	rl, err := Create(t.TempDir(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	if _, err := rl.Append(chain.TypeRunStarted, "", map[string]any{"plan": "p"}); err != nil {
		t.Fatal(err)
	}
	e, err := rl.Append("eval.case", "q1", chain.CanonicalJSON(`{"answer":"the key is `+secret+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(e.Data, []byte(secret)) {
		t.Fatalf("the secret was written: %s", e.Data)
	}
	b, _ := os.ReadFile(filepath.Join(rl.Dir(), EventsFile))
	if bytes.Contains(b, []byte(secret)) {
		t.Fatalf("the secret is in the log: %s", b)
	}
}
