package verify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestVerifySignatureForger hands VerifySignature signatures a forger could
// embed: each must be refused before anything reports the seal as signed,
// with or without a trusted key.
func TestVerifySignatureForger(t *testing.T) {
	seal := hashid.Sum([]byte("seal")).String()
	h, _ := hashid.Parse(seal)
	good := Sign(h, testKey)
	pub := testKey.Public().(ed25519.PublicKey)
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name string
		edit func(s *Signature)
		want string
	}{
		{"garbage public key", func(s *Signature) { s.PublicKey = "not base64 at all!" }, "embedded public key"},
		{"31-byte public key", func(s *Signature) { s.PublicKey = b64(pub[:31]) }, "embedded public key"},
		{"33-byte public key", func(s *Signature) { s.PublicKey = b64(append(append([]byte{}, pub...), 0)) }, "embedded public key"},
		{"empty public key", func(s *Signature) { s.PublicKey = "" }, "embedded public key"},
		{"garbage signature", func(s *Signature) { s.Sig = "%%%" }, "64 bytes"},
		{"63-byte signature", func(s *Signature) { raw, _ := base64.StdEncoding.DecodeString(s.Sig); s.Sig = b64(raw[:63]) }, "64 bytes"},
		{"other algorithm", func(s *Signature) { s.Alg = "Ed25519" }, "not ed25519"},
		{"other key's valid signature", func(s *Signature) { *s = Sign(h, otherKey) }, "not by the trusted key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.edit(&s)
			for _, trusted := range []ed25519.PublicKey{pub, nil} {
				err := VerifySignature(seal, s, trusted)
				if tt.want == "not by the trusted key" && trusted == nil {
					if err != nil {
						t.Errorf("untrusted check of another key's valid signature: %v", err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("trusted %v: %v, want an error about %q", trusted != nil, err, tt.want)
				}
			}
		})
	}
	if err := VerifySignature(seal, good, pub); err != nil {
		t.Fatalf("the untouched signature: %v", err)
	}
	if err := VerifySignature(hashid.Sum([]byte("other")).String(), good, nil); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("a signature moved to another seal: %v", err)
	}
}

// TestVerifyBundleGarbageEmbeddedKey signs a bundle and then replaces the
// embedded public key with bytes that are no key: the bundle must not
// verify as signed.
func TestVerifyBundleGarbageEmbeddedKey(t *testing.T) {
	for _, key := range []string{"AAAA", "not-base64", ""} {
		b := parsed(t, signedBundle(t), func(bd *bundle) { bd.m.Signature.PublicKey = key })
		res := verifyVariant(t, b, Options{})
		if d, ok := failing(res.Checks)[CheckSignature]; res.OK || !ok || !strings.Contains(d, "embedded public key") {
			t.Errorf("key %q: ok %v, failing %v", key, res.OK, failing(res.Checks))
		}
	}
}

// bigRunDir builds a run directory whose log takes the parallel fast path.
func bigRunDir(t *testing.T) (*evfixture.Run, string, []byte) {
	t.Helper()
	r, err := evfixture.BuildLarge(t.TempDir(), evfixture.Large{Events: 1200, Artifacts: 2, ArtifactBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(r.Dir, "events.jsonl")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < parallelMin/16 {
		t.Fatalf("the log has %d bytes; the fast path starts at %d", len(b), parallelMin/16)
	}
	return r, log, b
}

// TestFastPathBadLineForger rewrites one line in the middle of a large log
// so that it still decodes to the same event (its hash still verifies) but
// is not in canonical form, or does not decode at all. The fast path must
// hand the log to the exact reader, which reports the line (a line that
// does not decode makes the log unreadable, at that line).
func TestFastPathBadLineForger(t *testing.T) {
	r, log, orig := bigRunDir(t)
	lines := bytes.SplitAfter(orig, []byte("\n"))
	const n = 600 // line 601, seq 601
	tests := []struct {
		name   string
		edit   func(l []byte) []byte
		naming string
	}{
		{"space after the brace", func(l []byte) []byte { return append([]byte("{ "), l[1:]...) }, "not in canonical JSON form"},
		{"escaped letter in type", func(l []byte) []byte {
			i := bytes.Index(l, []byte(`"type":"`)) + len(`"type":"`)
			return append(append(append([]byte{}, l[:i]...), fmt.Sprintf(`\u%04x`, l[i])...), l[i+1:]...)
		}, "not in canonical JSON form"},
		{"seq as a float", func(l []byte) []byte { return bytes.Replace(l, []byte(`"seq":601,`), []byte(`"seq":601.0,`), 1) }, "events.jsonl:601:"},
		{"duplicate key", func(l []byte) []byte {
			return bytes.Replace(l, []byte(`"seq":601,`), []byte(`"seq":601,"seq":601,`), 1)
		}, "not in canonical JSON form"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := append([][]byte{}, lines...)
			edited[n] = tt.edit(append([]byte{}, lines[n]...))
			if bytes.Equal(edited[n], lines[n]) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(log, bytes.Join(edited, nil), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(log, orig, 0o644)
			for _, workers := range []int{1, 4} {
				res, err := Verify(r.Dir, Options{Workers: workers})
				if err != nil {
					// a line that does not decode stops the reading, at its position
					if !strings.Contains(err.Error(), tt.naming) {
						t.Errorf("workers %d: %v; want it to name %q", workers, err, tt.naming)
					}
					continue
				}
				d, ok := failing(res.Checks)[CheckEvents]
				if res.OK || !ok || !strings.Contains(d, tt.naming) {
					t.Errorf("workers %d: ok %v, failing %v; want %s naming %q", workers, res.OK, failing(res.Checks), CheckEvents, tt.naming)
				}
			}
		})
	}
	if res, err := Verify(r.Dir, Options{Workers: 4, Expect: r.Seal}); err != nil || !res.OK {
		t.Fatalf("the restored log: %v %+v", err, res)
	}
}

// TestRunFinishedEditedInPlace edits the data of run.finished without
// touching its hash: the seal's head still names that hash, so only the
// chain check over the sealed prefix, run.finished included, can notice.
func TestRunFinishedEditedInPlace(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{})
	log := filepath.Join(r.Dir, "events.jsonl")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	last := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"type":"run.finished"`)) {
			last = i
		}
	}
	if last < 0 || !bytes.Contains(lines[last], []byte(`"data":{`)) {
		t.Fatalf("no run.finished with data in the fixture")
	}
	e, _, _, err := chain.ParseLog("events.jsonl", append(append([]byte{}, lines[last]...), '\n'))
	if err != nil || len(e) != 1 {
		t.Fatal(err)
	}
	// a member that sorts first and is canonical: the line stays canonical
	lines[last] = bytes.Replace(lines[last], []byte(`"data":{`), []byte(`"data":{"a":1,`), 1)
	if err := os.WriteFile(log, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(r.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "event " + strconv.FormatInt(e[0].Seq, 10) + ": bad hash"
	if d, ok := failing(res.Checks)[CheckEvents]; res.OK || !ok || !strings.Contains(d, want) {
		t.Fatalf("ok %v, failing %v; want %s naming %q", res.OK, failing(res.Checks), CheckEvents, want)
	}
}

// TestLineHashSmallData hashes lines whose data is one byte long: the
// fast hash must cut the line at the right place and agree with
// ComputeHash.
func TestLineHashSmallData(t *testing.T) {
	for _, data := range []any{1, 0, "", []any{}} {
		e, err := chain.NewEvent(nil, "r", 1, t0Time, "x", "", data)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := e.Line()
		var buf []byte
		h, ok := lineHash(&e, line, &buf)
		want, _ := e.ComputeHash()
		if !ok || h != want {
			t.Errorf("lineHash of %s: %v %s, want %s", line, ok, h, want)
		}
	}
}

// TestChainIntactFewerLinesThanEvents passes fewer lines than events (a
// caller that has lines for only part of the log): the events without a
// line are hashed from their fields.
func TestChainIntactFewerLinesThanEvents(t *testing.T) {
	var evs []chain.Event
	var lines [][]byte
	var prev *chain.Event
	for i := 1; i <= 5; i++ {
		e, err := chain.NewEvent(prev, "r", int64(i), t0Time, "x", "", map[string]any{"i": i})
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
		l, _ := e.Line()
		lines = append(lines, l)
		prev = &evs[len(evs)-1]
	}
	if !chainIntact("r", evs, lines[:3], 1) {
		t.Fatal("an intact chain with three lines of five is not intact")
	}
	evs[4].Data = []byte(`{"i":6}`)
	if chainIntact("r", evs, lines[:3], 1) {
		t.Fatal("an edited event past the lines is intact")
	}
}

// TestReadCappedAtTheLimit reads a file of exactly the cap (allowed) and
// one byte more (refused, naming the flag that raises it).
func TestReadCappedAtTheLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readCapped(p, 100); err != nil || len(b) != 100 {
		t.Fatalf("exactly the cap: %d bytes, %v", len(b), err)
	}
	if _, err := readCapped(p, 99); err == nil || !strings.Contains(err.Error(), "--max-bytes") {
		t.Fatalf("one byte over: %v", err)
	}
}

// TestReportDiffEmptiedItem empties a report item's text: the message says
// the item now shows nothing, not the markup after it.
func TestReportDiffEmptiedItem(t *testing.T) {
	got := []byte(`<p><span data-k="m" data-m="gmv"></span> rose</p>`)
	want := []byte(`<p><span data-k="m" data-m="gmv">5</span> rose</p>`)
	msg := describeReportDiff(got, want)
	if !strings.Contains(msg, `shows "", but the sealed evidence renders "5"`) {
		t.Fatalf("%s", msg)
	}
}

var t0Time = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TestBundleGarbageArtifactBlock adds an artifact block that is not JSON
// to an intact bundle: the bundle check names the block, rather than
// reading it as an empty artifact.
func TestBundleGarbageArtifactBlock(t *testing.T) {
	b, _ := fixtureBundle(t)
	i := bytes.Index(b, []byte(artifactOpen))
	if i < 0 {
		t.Fatal("the fixture bundle has no artifact block")
	}
	forged := append(append(append([]byte{}, b[:i]...), artifactOpen+"{not json</script>"...), b[i:]...)
	res := verifyVariant(t, forged, Options{})
	if d, ok := failing(res.Checks)[CheckBundle]; res.OK || !ok || !strings.Contains(d, "embedded artifact block 1 is unreadable") {
		t.Fatalf("ok %v, failing %v", res.OK, failing(res.Checks))
	}
}

// TestHashOneUnreadableBlob puts a directory where an artifact's blob
// should be: the read error is reported as such, not as altered bytes.
func TestHashOneUnreadableBlob(t *testing.T) {
	dir := t.TempDir()
	id := hashid.Sum([]byte("blob"))
	if err := os.MkdirAll(artifactPath(dir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	err := hashOne(dir, id.String(), make([]byte, 1<<10), 0)
	if err == nil || strings.Contains(err.Error(), "altered") || !strings.Contains(err.Error(), id.Short()) {
		t.Fatalf("a directory as the blob: %v", err)
	}
}

// TestLoadKeyMissingFile: a key file that is not there is reported as
// missing, not as a file of the wrong format.
func TestLoadKeyMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nokey")
	if _, err := LoadPrivateKey(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadPrivateKey: %v", err)
	}
	if _, err := LoadPublicKey(p + ".pub"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadPublicKey: %v", err)
	}
}

// TestSameCellCitedNumbers compares the values a metric cites with the
// cells of its snapshot, across the number types decoding can give.
func TestSameCellCitedNumbers(t *testing.T) {
	for _, tt := range []struct {
		cited, cell any
		want        bool
	}{
		{json.Number("3"), int64(3), true},
		{json.Number("3"), int64(4), false},
		{json.Number("2.5"), 2.5, true},
		{json.Number("1e400"), math.Inf(1), false},
		{float64(2), int64(2), true},
		{2, int64(2), true},
		{"a", "a", true},
		{"3", int64(3), false},
		{nil, nil, true},
	} {
		if got := sameCell(tt.cited, tt.cell); got != tt.want {
			t.Errorf("sameCell(%#v, %#v) = %v", tt.cited, tt.cell, got)
		}
	}
}

// TestVerifyCountsMetrics: the metrics line counts the metrics it
// recomputed; the fixture's metric set has two (gmv, north_share).
func TestVerifyCountsMetrics(t *testing.T) {
	b, _ := fixtureBundle(t)
	res := verifyVariant(t, b, Options{})
	for _, c := range res.Checks {
		if c.Name == CheckMetrics && c.Detail != "2 metrics recomputed from their cited cells" {
			t.Fatalf("metrics: %q", c.Detail)
		}
	}
}

// TestGenerateKeyPair writes a key pair, reads both halves back, signs
// with one and verifies with the other, and refuses to overwrite it.
func TestGenerateKeyPair(t *testing.T) {
	p := filepath.Join(t.TempDir(), "seal.key")
	pub, err := GenerateKey(p)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		t.Fatalf("GenerateKey: %d-byte key, %v", len(pub), err)
	}
	priv, err := LoadPrivateKey(p)
	if err != nil {
		t.Fatal(err)
	}
	pub2, err := LoadPublicKey(p + ".pub")
	if err != nil || !pub2.Equal(pub) {
		t.Fatalf("LoadPublicKey: %v", err)
	}
	h := hashid.Sum([]byte("seal"))
	if err := VerifySignature(h.String(), Sign(h, priv), pub2); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateKey(p); err == nil {
		t.Fatal("GenerateKey overwrote an existing key")
	}
}

// TestFastLineTakesDataNestedToTheLimit: data nested exactly MaxJSONDepth
// (200) levels deep is still read by the fast path; one level more is not.
func TestFastLineTakesDataNestedToTheLimit(t *testing.T) {
	line := func(depth int) []byte {
		return []byte(`{"data":` + strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth) + `,"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`)
	}
	if _, ok := chain.ReadCanonicalLine(line(200)); !ok {
		t.Error("data nested 200 levels is refused")
	}
	if _, ok := chain.ReadCanonicalLine(line(201)); ok {
		t.Error("data nested 201 levels is accepted")
	}
}

// TestWorkerCount: Options.Workers of 1 means one worker (a serial run
// that can be compared with a parallel one); 0 or less means every core.
func TestWorkerCount(t *testing.T) {
	for n, want := range map[int]int{1: 1, 3: 3, 0: runtime.GOMAXPROCS(0), -2: runtime.GOMAXPROCS(0)} {
		if got := workerCount(n); got != want {
			t.Errorf("workerCount(%d) = %d, want %d", n, got, want)
		}
	}
}
