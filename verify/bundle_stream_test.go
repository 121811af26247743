package verify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentlab/agentlab/bench"
	"github.com/agentlab/agentlab/chain"
)

// TestStreamedBlocksAreWhatMarshalWrites holds the streaming writers to
// the bytes encoding/json gives for the same values, on the texts most
// likely to differ: escapes, HTML characters, line separators, multi-byte
// runes cut by a chunk boundary, a last chunk of one byte, binary, empty
// and one-byte artifacts.
func TestStreamedBlocksAreWhatMarshalWrites(t *testing.T) {
	long := strings.Repeat("ab", textChunk/2-1) + "中文" + strings.Repeat("x", textChunk)
	texts := map[string][]byte{
		"empty":                 {},
		"one byte":              []byte("7"),
		"one byte over a chunk": []byte(strings.Repeat("w", textChunk) + "!"),
		"json":                  []byte(`{"a":"<b>&amp;</b>","n":[1,2]}` + "\n"),
		"controls":              []byte("tab\tcr\rnl\nbell\x07 del\x7f nul\x00 bs\b ff\f"),
		"separators":            []byte("line\u2028para\u2029end"),
		"rune across the chunk": []byte(long),
		"quote across":          []byte(strings.Repeat("y", textChunk-1) + `"\` + strings.Repeat("z", 10)),
		"binary":                {0xff, 0xfe, 0, 1, 2, 3},
		"binary long":           bytes.Repeat([]byte{0xc3, 0x28, 0x80}, textChunk),
	}
	for name, data := range texts {
		a := artifact{ID: "b3:" + name}
		if utf8.Valid(data) {
			s := string(data)
			a.Text = &s
		} else {
			s := base64.StdEncoding.EncodeToString(data)
			a.B64 = &s
		}
		want, _ := json.Marshal(a)
		var got bytes.Buffer
		if err := writeArtifactBlock(&got, a.ID, data); err != nil {
			t.Fatal(err)
		}
		wantBlock := artifactOpen + string(want) + scriptClose
		if got.String() != wantBlock {
			t.Errorf("%s: streamed block differs at byte %d", name, diffAt(got.Bytes(), []byte(wantBlock)))
		}
		id, back, prob, err := decodeArtifactBlock(want)
		if err != nil || prob != "" || id != a.ID || !bytes.Equal(back, data) {
			t.Errorf("%s: decoded back to %q, %q, %v (want the same bytes)", name, prob, back[:min(len(back), 40)], err)
		}
	}
	ms := []manifest{
		{Format: 1, Run: "r<1>", SealHash: "b3:x", Seal: chain.Seal{Run: "r", Artifacts: []string{"a"}}, Events: []string{`{"a":"<&>"}`, "two\u2028"}},
		{Format: 1, Events: nil, Signature: &Signature{Alg: "ed25519", Sig: "s", PublicKey: "k"}},
		{Format: 1, Events: []string{}},
	}
	for i, m := range ms {
		want, _ := json.Marshal(m)
		var got bytes.Buffer
		if err := writeManifest(&got, &m); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("manifest %d: streamed\n%s\nwant\n%s", i, got.Bytes(), want)
		}
	}
}

// TestCraftedArtifactBlocksAreReadAsTheDecoderReadsThem feeds the block
// reader blocks an attacker might write and requires the verdict a
// json.Decoder with DisallowUnknownFields gives: the same id and bytes,
// or a refusal.
func TestCraftedArtifactBlocksAreReadAsTheDecoderReadsThem(t *testing.T) {
	blocks := []string{
		`{"id":"a","text":"x"}`,
		`{"id":"a","text":"x","extra":1}`,
		`{"ID":"a","TEXT":"x"}`,
		`{"\u0069d":"a","text":"x"}`,
		`{"id":"a","text":null,"b64":"eA=="}`,
		`{"id":"a","text":5}`,
		`{"id":"a","text":"x"} {"id":"b"}`,
		`{"id":"a","text":"x"} `,
		`{"id":"a","text":"\ud800 bad surrogate"}`,
		"{\"id\":\"a\",\"text\":\"\xff invalid utf-8\"}",
		`{"id":"a","b64":"eA"}`,
		`{"id":"a","b64":"e\u0041=="}`,
		`{"id":"a","text":"x","b64":"eA=="}`,
		`{"id":"a"}`,
		`{"id":"a","text":{"nested":[1,{"x":"}"}]}}`,
		`{"id":"a","other":{"text":"}"},"text":"y"}`,
		`[]`,
		`{"id":"a","text":"x",}`,
	}
	for _, raw := range blocks {
		if msg := readsAsDecoder([]byte(raw)); msg != "" {
			t.Error(msg)
		}
	}
}

// FuzzArtifactBlockReadsAsDecoder holds the block reader to the verdict of
// a json.Decoder with DisallowUnknownFields on any input (stricter only
// after the value: "{}}" is refused), and a block it takes as canonical to
// the writer's bytes.
func FuzzArtifactBlockReadsAsDecoder(f *testing.F) {
	for _, s := range []string{`{"id":"a","text":"x"}`, `{"id":"a","b64":"eA=="}`, `{"Id":"a","tExt":"\u00e9"}`, `{"id":"a","x":[{"}":1}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if msg := readsAsDecoder(raw); msg != "" {
			t.Error(msg)
		}
	})
}

// readsAsDecoder compares decodeArtifactBlock with json.Decoder on raw and
// describes a disagreement ("" when they agree).
func readsAsDecoder(raw []byte) string {
	var a artifact
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	derr := dec.Decode(&a)
	// The decoder's More misses a trailing "}" or "]"; the block reader
	// refuses anything after the value, as json.Unmarshal does.
	if derr == nil && len(bytes.Trim(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		derr = errors.New("more than one JSON value")
	}
	if derr == nil && jsonDepth(raw) > MaxJSONDepth {
		derr = errors.New("too deep")
	}
	id, data, prob, err := decodeArtifactBlock(raw)
	if (derr != nil) != (err != nil) {
		return fmt.Sprintf("%q: the decoder says %v, the block reader %v", raw, derr, err)
	}
	if derr != nil {
		return ""
	}
	var want []byte
	switch {
	case a.Text != nil && a.B64 == nil:
		want = []byte(*a.Text)
	case a.B64 != nil && a.Text == nil:
		want, _ = base64.StdEncoding.DecodeString(*a.B64)
	}
	if id != a.ID || !bytes.Equal(data, want) {
		return fmt.Sprintf("%q: read as %q %q (problem %q), the decoder reads %q %q", raw, id, data, prob, a.ID, want)
	}
	// A block taken as canonical must be exactly what the writer writes.
	if prob == "" && isCanonicalBlock(raw, id, data) {
		var w bytes.Buffer
		_ = writeArtifactJSON(&w, id, data)
		if !bytes.Equal(w.Bytes(), raw) {
			return fmt.Sprintf("%q: taken as canonical, but the writer writes %q", raw, w.Bytes())
		}
	}
	return ""
}

// TestVerifyLargeBundleAllocatesLessThanTwiceItsSize verifies a bundle of
// 24 one-MiB binary artifacts and requires that verify allocated, in all,
// less than twice the file's size: the file is mapped, not read, every
// artifact is decoded and hashed once, one at a time, and the page check
// takes the artifact blocks as they are. (Before, the file, every
// artifact's base64 and bytes and two renderings of the whole page were
// allocated: about ten times the file.)
func TestVerifyLargeBundleAllocatesLessThanTwiceItsSize(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the bundle is read, not mapped, where files cannot be mapped")
	}
	data := t.TempDir()
	g, err := bench.WriteRun(data, bench.RunSpec{ID: "big-bundle", Events: 2000, Blobs: 24, BlobSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bundle.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteBundle(f, g.Dir, BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, _ := os.Stat(path)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Verify(path, Options{})
	runtime.ReadMemStats(&after)
	if err != nil || !res.OK {
		t.Fatalf("the bundle does not verify: %v %+v", err, res)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("bundle %d bytes, verify allocated %d bytes (%.2f×)", fi.Size(), alloc, float64(alloc)/float64(fi.Size()))
	if alloc >= 2*uint64(fi.Size()) {
		t.Errorf("verify allocated %d bytes for a bundle of %d", alloc, fi.Size())
	}
}
