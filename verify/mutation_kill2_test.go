package verify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"github.com/agentlab/agentlab/chain"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
	"github.com/agentlab/agentlab/run/runlog"
)

// TestBundleForgerSecondJSONValue appends a second JSON value inside an
// artifact block and inside the manifest: a reader that stops after the
// first value would verify bytes the page's own JSON.parse refuses.
func TestBundleForgerSecondJSONValue(t *testing.T) {
	orig, _ := fixtureBundle(t)
	for _, open := range []string{artifactOpen, manifestOpen} {
		i := bytes.Index(orig, []byte(open))
		e := i + bytes.Index(orig[i:], []byte("</script>"))
		b := append(append(append([]byte{}, orig[:e]...), ` {"id":"x"}`...), orig[e:]...)
		_, probs, err := parseBundle(b)
		if all := strings.Join(probs, "\n"); err != nil || !(strings.Contains(all, "more than one JSON value") || strings.Contains(all, "after top-level value")) {
			t.Errorf("%s: %v %v; want the second value reported", open, err, probs)
		}
		if res := verifyVariant(t, b, Options{}); res.OK {
			t.Errorf("%s: a block with two JSON values verifies", open)
		}
	}
}

// TestGenerateKeyPublicHalfExists: when the public key file is already
// there, GenerateKey fails and leaves no private key behind that has no
// public half.
func TestGenerateKeyPublicHalfExists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	if err := os.WriteFile(path+".pub", []byte("someone else's key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateKey(path); err == nil {
		t.Fatal("GenerateKey overwrote nothing and reported success")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a private key without its public half is left: %v", err)
	}
	if b, _ := os.ReadFile(path + ".pub"); string(b) != "someone else's key\n" {
		t.Errorf("the existing public key file was changed: %q", b)
	}
}

// TestLoadPublicKeyBase64Forger reads public keys given as the base64 of
// the raw bytes (as run.json records them): the 32 bytes of a key load,
// a garbage, short or long text is refused.
func TestLoadPublicKeyBase64Forger(t *testing.T) {
	pub := []byte(testKey.Public().(ed25519.PublicKey))
	dir := t.TempDir()
	for name, c := range map[string]struct {
		text string
		ok   bool
	}{
		"key":      {base64.StdEncoding.EncodeToString(pub) + "\n", true},
		"garbage":  {"not base64!\n", false},
		"31 bytes": {base64.StdEncoding.EncodeToString(pub[:31]), false},
		"33 bytes": {base64.StdEncoding.EncodeToString(append(append([]byte{}, pub...), 0)), false},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadPublicKey(p)
		if c.ok && (err != nil || !bytes.Equal(got, pub)) {
			t.Errorf("%s: %v, %x", name, err, got)
		}
		if !c.ok && err == nil {
			t.Errorf("%s: loaded as key %x", name, got)
		}
	}
}

// TestWriteBundleWithoutRunRecord bundles a directory that holds no
// run.json: an error, never a bundle and never a crash.
func TestWriteBundleWithoutRunRecord(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{})
	if err := os.Remove(filepath.Join(r.Dir, "run.json")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteBundle(&buf, r.Dir, BundleOptions{}); err == nil || buf.Len() > 0 {
		t.Fatalf("WriteBundle without run.json: %v, %d bytes", err, buf.Len())
	}
}

// TestRunDirForgedInputsHash edits run.started to name inputs by a text
// that is no hash id: the stored-inputs check says so, rather than
// looking up some other artifact.
func TestRunDirForgedInputsHash(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{})
	log := filepath.Join(r.Dir, "events.jsonl")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"inputs_hash":"`))
	if i < 0 {
		t.Fatal("the fixture run names no inputs_hash")
	}
	i += len(`"inputs_hash":"`)
	j := i + bytes.IndexByte(b[i:], '"')
	forged := append(append(append([]byte{}, b[:i]...), "not-a-hash"...), b[j:]...)
	if err := os.WriteFile(log, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(r.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := failing(res.Checks)[CheckArtifacts]; res.OK || !strings.Contains(d, `"not-a-hash", which is not a hash id`) {
		t.Errorf("ok %v, failing %v", res.OK, failing(res.Checks))
	}
}

// TestRunDirEditedReport: a run directory whose run.json names its report
// by a relative path (as agentlab writes it) has that file compared with
// what the sealed evidence renders; an edited report fails, wherever the
// verifier is started from.
func TestRunDirEditedReport(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{})
	if err := evfixture.EditRecord(r.Dir, func(rec map[string]any) { rec["report"] = "report.html" }); err != nil {
		t.Fatal(err)
	}
	page := "<!DOCTYPE html>" + render.BeginReport + "<p data-k=\"x\">an edited story</p>" + render.EndReport
	if err := os.WriteFile(filepath.Join(r.Dir, "report.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(r.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := failing(res.Checks)[CheckReport]; res.OK || !ok {
		t.Errorf("an edited report.html: ok %v, failing %v", res.OK, failing(res.Checks))
	}
}

// TestReportDiffTextRunsToTheEnd: a forged report whose body ends inside
// an item's text, with no tag after it, is described, not a crash.
func TestReportDiffTextRunsToTheEnd(t *testing.T) {
	got := []byte(`<p>x</p><span data-k="m" data-n="gmv">12`)
	want := []byte(`<p>x</p><span data-k="m" data-n="gmv">13</span>`)
	d := describeReportDiff(got, want)
	if !strings.Contains(d, `shows "12"`) || !strings.Contains(d, `renders "13"`) {
		t.Errorf("describeReportDiff = %s", d)
	}
}

// TestPostSealCounts: the events after the seal are counted in words a
// reader can trust: one event, not "1 events".
func TestPostSealCounts(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{PostSeal: true})
	res, err := Verify(r.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		if c.Name == CheckPostSeal {
			if !c.OK || !strings.HasPrefix(c.Detail, "1 event after the seal") {
				t.Errorf("post-seal: %v %q", c.OK, c.Detail)
			}
			return
		}
	}
	t.Error("no post-seal check")
}

// TestBundleNonCanonicalMetricSet stores the metric set pretty-printed
// under the id of those bytes, and reseals: every hash holds, but the page
// verifier hashes what it re-serialises, so the artifact must be refused
// as not canonical.
func TestBundleNonCanonicalMetricSet(t *testing.T) {
	orig, _ := fixtureBundle(t)
	b := resealed(t, orig, func(bd *bundle, evs []map[string]any, put func(string, any) string) {
		old := artifactWhere(t, bd, `"substituted"`)
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, bd.arts[old], "", "  "); err != nil {
			t.Fatal(err)
		}
		id := hashid.Sum(pretty.Bytes()).String()
		bd.arts[id] = pretty.Bytes()
		delete(bd.arts, old)
		for _, e := range evs {
			replaceString(e, old, id)
		}
	})
	res := verifyVariant(t, b, Options{})
	if d := failing(res.Checks)[CheckMetrics]; res.OK || !strings.Contains(d, "is not canonical JSON") {
		t.Errorf("ok %v, failing %v", res.OK, failing(res.Checks))
	}
}

// TestHashIsForgedText: the fast chain check compares an event's recorded
// hash text with the hash it computes; text of the wrong length, with
// another prefix or other digits is never the same hash.
func TestHashIsForgedText(t *testing.T) {
	h := hashid.Sum([]byte("event"))
	s := h.String()
	if !hashIs(h, s) {
		t.Fatalf("hashIs(%s) is false", s)
	}
	for _, forged := range []string{"", "b3:", s[:len(s)-1], s + "0", "x3:" + s[3:], strings.ToUpper(s), hashid.Sum([]byte("other")).String()} {
		if hashIs(h, forged) {
			t.Errorf("hashIs(%q) is true", forged)
		}
	}
}

// TestBundleEditedVisibleReportOnly edits one word of the visible report
// and, apart, renames the report's data block: each is blamed on what was
// edited — the visible report, or the embedded data — and only on it.
func TestBundleEditedVisibleReportOnly(t *testing.T) {
	orig, _ := fixtureBundle(t)
	i := bytes.Index(orig, []byte(render.BeginReport))
	j := i + bytes.Index(orig[i:], []byte("Weekly"))
	if j < i {
		t.Fatal("the fixture report has no word Weekly")
	}
	b := append([]byte{}, orig...)
	copy(b[j:], "Weakly")
	f := failing(verifyVariant(t, b, Options{}).Checks)
	if _, ok := f[CheckReport]; !ok {
		t.Errorf("an edited visible report: failing %v, want %s", f, CheckReport)
	}
	if _, ok := f[CheckEvidence]; ok {
		t.Errorf("an edited visible report is blamed on the evidence data: %v", f)
	}
	b = bytes.Replace(orig, []byte(`id="al-data"`), []byte(`id="al-dat4"`), 1)
	f = failing(verifyVariant(t, b, Options{}).Checks)
	if _, ok := f[CheckEvidence]; !ok {
		t.Errorf("a renamed data block: failing %v, want %s", f, CheckEvidence)
	}
}

// TestRunRecordForgedTypes gives run.json a field of the wrong type next
// to a valid run id: the record is unreadable, not read in part.
func TestRunRecordForgedTypes(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{})
	rj := filepath.Join(r.Dir, "run.json")
	b, err := os.ReadFile(rj)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec["seal_data"] = "sealed, trust me"
	b, _ = json.Marshal(rec)
	if err := os.WriteFile(rj, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := Verify(r.Dir, Options{}); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Errorf("Verify = %+v, %v; want run.json unreadable", res, err)
	}
}

// TestMetricCitesMissingColumn reseals a metric whose cell names a column
// the snapshot does not have: it is reported as citing a cell that does
// not exist, never compared with some other column.
func TestMetricCitesMissingColumn(t *testing.T) {
	orig, _ := fixtureBundle(t)
	b := resealedMetric(t, orig, func(m map[string]any) {
		cells, _ := m["cells"].([]any)
		if len(cells) == 0 {
			t.Fatal("the fixture metric cites no cell")
		}
		cells[0].(map[string]any)["column"] = "no_such_column"
	})
	res := verifyVariant(t, b, Options{})
	if d := failing(res.Checks)[CheckMetrics]; res.OK || !strings.Contains(d, `column "no_such_column", which does not exist`) {
		t.Errorf("ok %v, failing %v", res.OK, failing(res.Checks))
	}
}

// TestSignedBundleNamesItsKey: a signed bundle's signature check names
// the key that signed it, so that a reader can tell whose key it was.
func TestSignedBundleNamesItsKey(t *testing.T) {
	id := KeyID(testKey.Public().(ed25519.PublicKey))
	for _, opt := range []Options{{}, {PublicKey: testKey.Public().(ed25519.PublicKey)}} {
		res := verifyVariant(t, signedBundle(t), opt)
		for _, c := range res.Checks {
			if c.Name == CheckSignature && (!c.OK || !strings.Contains(c.Detail, id)) {
				t.Errorf("trusted %v: %v %q, want it to name %s", opt.PublicKey != nil, c.OK, c.Detail, id)
			}
		}
	}
}

// TestBundleForgedEventLine puts a line that is no event into a bundle's
// events: the evidence cannot be loaded, and both the data block and the
// visible report say they were not compared rather than passing.
func TestBundleForgedEventLine(t *testing.T) {
	orig, _ := fixtureBundle(t)
	bd, _, err := parseBundle(orig)
	if err != nil {
		t.Fatal(err)
	}
	evs := append([]string{}, bd.m.Events...)
	evs[2] = "not an event"
	f := failing(verifyVariant(t, parsedEvents(t, orig, evs), Options{}).Checks)
	for _, check := range []string{CheckEvidence, CheckReport} {
		if !strings.Contains(f[check], "not compared") {
			t.Errorf("%s: %q; failing %v", check, f[check], f)
		}
	}
}

// TestLineHashRefusesOtherLayouts: lineHash hashes a line only when its
// hash member sits where canon writes it; for a line laid out otherwise
// (another event's line, a line cut short, the member moved) it must say
// so, so that the caller computes the hash from the event instead.
func TestLineHashRefusesOtherLayouts(t *testing.T) {
	_, _, orig := bigRunDir(t)
	lines := splitLines(orig)
	e1, ok1 := chain.ReadCanonicalLine(lines[1])
	_, ok2 := chain.ReadCanonicalLine(lines[2])
	if !ok1 || !ok2 {
		t.Fatal("the fixture lines do not take the fast path")
	}
	var buf []byte
	if h, ok := lineHash(&e1, lines[1], &buf); !ok || !hashIs(h, e1.Hash) {
		t.Fatalf("the event's own line: %v %v", h, ok)
	}
	moved := bytes.Replace(lines[1], []byte(`"hash":"`), []byte(`"hasH":"`), 1)
	for name, line := range map[string][]byte{
		"another event's line": lines[2],
		"the member renamed":   moved,
		"cut short":            lines[1][:len(lines[1])/2],
	} {
		if _, ok := lineHash(&e1, line, &buf); ok {
			t.Errorf("%s: lineHash accepted it", name)
		}
	}
}

// TestSplitLinesKeepsBlankLines: a blank line in the middle of a log is a
// line of its own (the exact reader reports it), not the end of the log.
func TestSplitLinesKeepsBlankLines(t *testing.T) {
	got := splitLines([]byte("a\n\nb\n\nc"))
	if len(got) != 4 || string(got[0]) != "a" || len(got[1]) != 0 || string(got[2]) != "b" || len(got[3]) != 0 {
		t.Errorf("splitLines = %q", got)
	}
}

// TestReadCappedZeroLimit: a cap of zero bytes reads an empty file and
// refuses a one-byte file, without a buffer size going negative.
func TestReadCappedZeroLimit(t *testing.T) {
	empty := writeTemp(t, "empty", nil)
	if b, err := readCapped(empty, 0); err != nil || len(b) != 0 {
		t.Errorf("an empty file under a zero cap: %q %v", b, err)
	}
	one := writeTemp(t, "one", []byte("x"))
	if _, err := readCapped(one, 0); err == nil {
		t.Error("a one-byte file passed a zero cap")
	}
}

// TestShortestRunForgedInputs seals the shortest run there is, run.started
// and run.finished, whose run.started records one set of inputs but names
// the stored artifact of another: the stored inputs are checked in a
// run of two events as in any other.
func TestShortestRunForgedInputs(t *testing.T) {
	dataDir := t.TempDir()
	rl, err := runlog.Create(dataDir, "short-run")
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	put := func(v any) string {
		b, err := canon.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		id, err := rl.PutArtifact(b)
		if err != nil {
			t.Fatal(err)
		}
		return id.String()
	}
	plan := put(map[string]any{"agentlab": 1, "name": "short", "nodes": []any{}})
	other := put(map[string]any{"week": "2026-W01"})
	for _, e := range []struct {
		typ  string
		data any
	}{
		{"run.started", map[string]any{"plan": plan, "inputs": map[string]any{"week": "2026-W47"}, "inputs_hash": other}},
		{"run.finished", map[string]any{"status": "succeeded", "outputs": map[string]any{}}},
	} {
		if _, err := rl.Append(e.typ, "", e.data); err != nil {
			t.Fatal(err)
		}
	}
	rec := rl.Record()
	rec.ID, rec.Plan, rec.Status = "short-run", plan, runlog.StatusSucceeded
	if err := rl.WriteRecord(rec); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rl.Seal(plan); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(filepath.Join(runlog.RunsDir(dataDir), "short-run"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := failing(res.Checks)[CheckArtifacts]; res.OK || !strings.Contains(d, "differ from the inputs run.started records") {
		t.Errorf("ok %v, failing %v", res.OK, failing(res.Checks))
	}
}

// TestMetricCitesAForgedRowCount turns a metric's first cell citation into
// a row count (row -1, no column) with a count the snapshot does not have:
// the verifier compares it with the snapshot's rows and says so, rather
// than looking for a column that has no name.
func TestMetricCitesAForgedRowCount(t *testing.T) {
	orig, _ := fixtureBundle(t)
	b := resealedMetric(t, orig, func(m map[string]any) {
		cells, _ := m["cells"].([]any)
		if len(cells) == 0 {
			t.Fatal("the fixture metric cites no cell")
		}
		c := cells[0].(map[string]any)
		c["row"], c["column"], c["value"] = -1, "", 999999
	})
	res := verifyVariant(t, b, Options{})
	if d := failing(res.Checks)[CheckMetrics]; res.OK || !strings.Contains(d, "cites 999999 rows of") || !strings.Contains(d, "the snapshot has") {
		t.Errorf("ok %v, failing %v", res.OK, failing(res.Checks))
	}
}
