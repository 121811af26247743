package hashid

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/zeebo/blake3"
)

// emptyHex is BLAKE3-256 of no bytes, from the BLAKE3 reference vectors.
const emptyHex = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"

// TestSumMatchesReference pins every way of hashing to the reference value.
func TestSumMatchesReference(t *testing.T) {
	if got := Sum(nil).Hex(); got != emptyHex {
		t.Fatalf("Sum(nil) = %s", got)
	}
	id, n, err := SumReader(strings.NewReader(""))
	if err != nil || n != 0 || id.Hex() != emptyHex {
		t.Fatalf("SumReader(empty) = %s, %d, %v", id, n, err)
	}
	if got := FromHasher(New()).Hex(); got != emptyHex {
		t.Fatalf("FromHasher(New()) = %s", got)
	}
	data := strings.Repeat("agentlab ", 1000)
	id, n, err = SumReader(strings.NewReader(data))
	if err != nil || n != int64(len(data)) || id != Sum([]byte(data)) {
		t.Fatalf("SumReader = %s, %d, %v; want %s", id, n, err, Sum([]byte(data)))
	}
	h := New()
	h.Write([]byte(data))
	if FromHasher(h) != Sum([]byte(data)) {
		t.Fatal("FromHasher differs from Sum")
	}
}

// TestSumReaderFailingReader checks that a read error is returned, not
// hashed over: a half-read artifact must not get an id.
func TestSumReaderFailingReader(t *testing.T) {
	boom := errors.New("disk gone")
	id, _, err := SumReader(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) || !id.IsZero() {
		t.Fatalf("got %s, %v; want the zero id and the read error", id, err)
	}
}

// TestTextForms checks String, Hex, Short and the text round trip.
func TestTextForms(t *testing.T) {
	id := Sum(nil)
	if id.String() != "b3:"+emptyHex || id.Short() != emptyHex[:12] {
		t.Fatalf("String %s, Short %s", id, id.Short())
	}
	b, err := id.MarshalText()
	if err != nil || string(b) != id.String() {
		t.Fatalf("MarshalText = %s, %v", b, err)
	}
	var back ID
	if err := back.UnmarshalText(b); err != nil || back != id {
		t.Fatalf("UnmarshalText = %s, %v", back, err)
	}
	if id.IsZero() || !(ID{}).IsZero() {
		t.Fatal("IsZero")
	}
}

// TestParseForgedIDs gives Parse the ids a forger or a damaged file would
// hold. Each must be refused, never read as some other id (a hex decoder
// that stops early leaves the all-zero id behind).
func TestParseForgedIDs(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no prefix", emptyHex, "must start with"},
		{"other algorithm", "sha256:" + emptyHex, "must start with"},
		{"63 digits", "b3:" + emptyHex[:63], "64 hex digits"},
		{"65 digits", "b3:" + emptyHex + "0", "64 hex digits"},
		{"64 non-hex characters", "b3:" + strings.Repeat("zz", 32), "not hex"},
		{"non-hex at the end", "b3:" + emptyHex[:63] + "g", "not hex"},
		{"uppercase hex", "b3:" + strings.ToUpper(emptyHex), "lowercase"},
		{"empty", "", "must start with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := Parse(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%q) = %s, %v; want an error about %q", tt.in, id, err, tt.want)
			}
			if !id.IsZero() {
				t.Errorf("Parse(%q) returned %s with its error", tt.in, id)
			}
			var into ID
			if err := into.UnmarshalText([]byte(tt.in)); err == nil || !into.IsZero() {
				t.Errorf("UnmarshalText(%q) = %s, %v", tt.in, into, err)
			}
		})
	}
}

// TestParseReadsEveryDigit checks that the parsed id is the one written,
// digit for digit.
func TestParseReadsEveryDigit(t *testing.T) {
	s := "b3:" + emptyHex
	id, err := Parse(s)
	if err != nil || id != Sum(nil) || id.String() != s {
		t.Fatalf("Parse(%s) = %s, %v", s, id, err)
	}
	if _, err := ParseHex(emptyHex); err != nil {
		t.Fatal(err)
	}
}

// TestSumEqualsBLAKE3 holds the pooled hasher to blake3.Sum256 on inputs
// around the chunk size (1,024 bytes) and the hasher's 8 KiB buffer, in
// any order, so that a reused hasher never carries one input into the
// next.
func TestSumEqualsBLAKE3(t *testing.T) {
	sizes := []int{0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 8191, 8192, 8193, 100_000, 5, 1024}
	for _, n := range sizes {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + n)
		}
		if got, want := Sum(b), ID(blake3.Sum256(b)); got != want {
			t.Errorf("Sum of %d bytes = %s, want %s", n, got, want)
		}
	}
}

func BenchmarkSum(b *testing.B) {
	for _, n := range []int{300, 4096} {
		data := make([]byte, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for range b.N {
				Sum(data)
			}
		})
	}
}

// TestSumOfficialVectors checks Sum and the streaming hasher against the
// hash mode of the official BLAKE3 test vectors (inputs of 0 to 102,400
// bytes, so every code path: one block, one chunk, the SIMD tree).
func TestSumOfficialVectors(t *testing.T) {
	data, err := os.ReadFile("../testdata/blake3-test-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		Cases []struct {
			InputLen int    `json:"input_len"`
			Hash     string `json:"hash"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.Cases) < 30 {
		t.Fatalf("only %d cases", len(vectors.Cases))
	}
	for _, c := range vectors.Cases {
		in := make([]byte, c.InputLen)
		for i := range in {
			in[i] = byte(i % 251)
		}
		want := c.Hash[:64] // the extended output starts with the 32-byte hash
		if got := Sum(in).Hex(); got != want {
			t.Errorf("Sum of %d bytes = %s, want %s", c.InputLen, got, want)
		}
		h := New()
		for rest := in; len(rest) > 0; {
			n := min(len(rest), 1000)
			h.Write(rest[:n])
			rest = rest[n:]
		}
		if got := FromHasher(h).Hex(); got != want {
			t.Errorf("streamed hash of %d bytes = %s, want %s", c.InputLen, got, want)
		}
	}
}

// TestSumReaderBuffer checks the buffered reader against Sum over sizes
// around the buffer's and BLAKE3's chunk boundaries, through readers that
// return one byte at a time or data together with io.EOF, and that a read
// error is returned instead of an id of the bytes read so far.
func TestSumReaderBuffer(t *testing.T) {
	data := make([]byte, 3*8192+17)
	for i := range data {
		data[i] = byte(i*31 + i>>8)
	}
	readers := map[string]func([]byte) io.Reader{
		"plain":    func(b []byte) io.Reader { return strings.NewReader(string(b)) },
		"one byte": func(b []byte) io.Reader { return iotest.OneByteReader(strings.NewReader(string(b))) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(strings.NewReader(string(b))) },
	}
	for _, n := range []int{0, 1, 1023, 1024, 1025, 4096, 8192, 8193, len(data)} {
		for name, mk := range readers {
			for _, bufSize := range []int{1, 4096, 1 << 20} {
				id, got, err := SumReaderBuffer(mk(data[:n]), make([]byte, bufSize))
				if err != nil || got != int64(n) || id != Sum(data[:n]) {
					t.Fatalf("%d bytes, %s reader, %d-byte buffer: %s, %d, %v; want %s", n, name, bufSize, id, got, err, Sum(data[:n]))
				}
			}
		}
	}
	boom := errors.New("disk gone")
	id, n, err := SumReaderBuffer(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), make([]byte, 8))
	if !errors.Is(err, boom) || !id.IsZero() || n != 3 {
		t.Fatalf("got %s, %d, %v; want the zero id, 3 bytes and the read error", id, n, err)
	}
}
