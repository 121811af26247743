package redact

import (
	"bytes"
	"encoding/base64"
	"io"
	"math/rand"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// chunky reads at most a random 1..max bytes at a time, so that values
// straddle reads at every offset.
type chunky struct {
	r   io.Reader
	rng *rand.Rand
	max int
}

func (c chunky) Read(p []byte) (int, error) {
	n := 1 + c.rng.Intn(c.max)
	if n < len(p) {
		p = p[:n]
	}
	return c.r.Read(p)
}

// TestReaderCatchesValuesSplitAcrossReads streams what an echoing server
// might send back — a secret in every form it can take, at every offset
// against the reads — and requires exactly what Bytes makes of the whole.
func TestReaderCatchesValuesSplitAcrossReads(t *testing.T) {
	tok := "s3cr3t-streamed-token/with+chars"
	Add(tok)
	forms := []string{tok, url.QueryEscape(tok), base64.StdEncoding.EncodeToString([]byte(tok)), base64.RawURLEncoding.EncodeToString([]byte(tok))}
	var in bytes.Buffer
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		in.WriteString(strings.Repeat("x", rng.Intn(90)))
		in.WriteString(forms[rng.Intn(len(forms))])
	}
	in.WriteString(tok[:10]) // a prefix at the very end is no value
	want := Bytes(in.Bytes())
	for name, r := range map[string]io.Reader{
		"one byte":   iotest.OneByteReader(bytes.NewReader(in.Bytes())),
		"random":     chunky{bytes.NewReader(in.Bytes()), rand.New(rand.NewSource(2)), 100},
		"large":      chunky{bytes.NewReader(in.Bytes()), rand.New(rand.NewSource(3)), 1 << 20},
		"data + EOF": iotest.DataErrReader(bytes.NewReader(in.Bytes())),
	} {
		got, err := io.ReadAll(Reader(r))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the stream differs from Bytes of the whole at byte %d", name, firstDiff(got, want))
		}
		for _, f := range forms {
			if bytes.Contains(got, []byte(f)) {
				t.Errorf("%s: the form %q went through", name, f)
			}
		}
	}
	failing := iotest.TimeoutReader(bytes.NewReader(in.Bytes()))
	if _, err := io.ReadAll(Reader(failing)); err == nil {
		t.Error("a read error was lost")
	}
}

func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
