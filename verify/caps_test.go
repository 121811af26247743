package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/evidence/render"
)

// TestCraftedBundles feeds the verifier bundles built to exhaust it: every
// one must come back quickly with a failing check or an UnreadableError,
// never a panic or a hang.
func TestCraftedBundles(t *testing.T) {
	base, _ := fixtureBundle(t)
	big := strings.Repeat("[", 1<<20)
	cases := map[string][]byte{
		"empty":            nil,
		"no manifest":      []byte("<html><body>hi</body></html>"),
		"unclosed":         []byte(manifestOpen + `{"format":1`),
		"deep manifest":    []byte(manifestOpen + big + "</script>"),
		"deep artifact":    append(append([]byte{}, base...), []byte(artifactOpen+`{"id":"x","text":`+big+"}</script>")...),
		"many blocks":      bytes.Repeat([]byte(artifactOpen+"{}</script>"), 5000),
		"deep event data":  parsedEvents(t, base, []string{`{"data":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `,"hash":"b3:00","prev":"","seq":1,"time":"","type":"x"}`}),
		"huge event count": parsedEvents(t, base, make([]string, 200000)),
		"huge formula": resealedMetric(t, base, func(m map[string]any) {
			m["substituted"] = strings.Repeat("1+", render.MaxFormulaBytes) + "1"
		}),
		"deep formula": resealedMetric(t, base, func(m map[string]any) {
			m["substituted"] = strings.Repeat("(", 50000) + "1" + strings.Repeat(")", 50000)
		}),
		"table over all rows": resealedReport(t, base, "[[table:Q1 rows=0-2000000000]] [[v:Q1.r99999999999.amount]]"),
	}
	for name, b := range cases {
		start := time.Now()
		res, err := VerifyBundle(b, Options{MaxBytes: 64 << 20})
		var ue *UnreadableError
		switch {
		case err != nil && !errors.As(err, &ue):
			t.Errorf("%s: error %v is not an UnreadableError", name, err)
		case err == nil && res.OK && name != "table over all rows":
			t.Errorf("%s: verified", name)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
	}
	if _, err := VerifyBundle(base, Options{MaxBytes: 100}); err == nil {
		t.Error("a bundle over --max-bytes was read")
	}
	t.Logf("RESULT crafted-bundles trials=%d", len(cases)+1)
}

func parsedEvents(t *testing.T, b []byte, evs []string) []byte {
	return parsed(t, b, func(bd *bundle) { bd.m.Events = evs })
}

func resealedMetric(t *testing.T, b []byte, f func(m map[string]any)) []byte {
	return resealed(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) {
		id := artifactWhere(t, bd, `"substituted"`)
		ms := jsonOf(t, bd.arts[id])
		f(ms["metrics"].([]any)[0].(map[string]any))
		put(id, ms)
	})
}

func resealedReport(t *testing.T, b []byte, src string) []byte {
	return resealed(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) {
		id := artifactWhere(t, bd, `"attempts"`)
		r := jsonOf(t, bd.arts[id])
		r["source"] = src
		delete(r, "violations")
		put(id, r)
	})
}

func FuzzVerifyBundle(f *testing.F) {
	base, _ := fixtureBundle(f)
	f.Add(base)
	f.Add(bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n"))) // the same document in Windows line ends
	f.Add(append([]byte("\ufeff"), base...))
	f.Add([]byte(manifestOpen + `{"format":1,"run":"r","seal_hash":"","seal":{},"events":[]}</script>`))
	f.Add([]byte(manifestOpen + `{"format":1,"events":["{\"seq\":1}"]}</script>` + artifactOpen + `{"id":"b3:00","b64":"!!"}</script>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := VerifyBundle(b, Options{MaxBytes: 8 << 20})
		if err == nil {
			if _, jerr := json.Marshal(res); jerr != nil {
				t.Fatal(jerr)
			}
			if res.OK && !bytes.Equal(b, base) && !bytes.Contains(b, []byte(manifestOpen)) {
				t.Fatal("verified a file without a manifest")
			}
			if res.OK && !bytes.Equal(b, base) && (res.ByteExact == nil || *res.ByteExact) {
				t.Fatalf("verified other bytes than the export with byte_exact %v", res.ByteExact)
			}
		}
	})
}
