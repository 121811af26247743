package verify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
)

// A tamper is one altered variant of the fixture bundle: how to alter it,
// the check that must fail (with a word of its detail that names the
// item), or "" when the variant must still verify.
type tamper struct {
	name   string
	alter  func(t *testing.T, b []byte) []byte
	check  string
	naming string
}

func mustReplace(t *testing.T, b []byte, old, new string, n int) []byte {
	t.Helper()
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("tamper: %q not in the bundle", old)
	}
	return bytes.Replace(b, []byte(old), []byte(new), n)
}

// inReport replaces the first occurrence of old inside the visible report.
func inReport(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	i := bytes.Index(b, []byte("<!--al-report-->"))
	j := bytes.Index(b, []byte("<!--/al-report-->"))
	k := bytes.Index(b[i:j], []byte(old))
	if k < 0 {
		t.Fatalf("tamper: %q not in the report", old)
	}
	out := append([]byte{}, b[:i+k]...)
	out = append(out, new...)
	return append(out, b[i+k+len(old):]...)
}

// parsed runs f on the parsed bundle and writes it back without fixing
// anything else: the manifest and the artifact blocks are re-encoded, the
// rest of the page is left as it was.
func parsed(t *testing.T, b []byte, f func(bd *bundle)) []byte {
	t.Helper()
	bd, probs, err := parseBundle(b)
	if err != nil || len(probs) > 0 {
		t.Fatalf("tamper: %v %v", err, probs)
	}
	f(bd)
	bd.sortArtifacts()
	ev, err := bd.evidenceHTML()
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(manifestOpen))
	j := bytes.LastIndex(b, []byte(artifactOpen))
	j += bytes.Index(b[j:], []byte(scriptClose)) + len(scriptClose)
	out := append([]byte{}, b[:i]...)
	out = append(out, ev...)
	return append(out, b[j:]...)
}

// resealed alters the evidence the way a forger who can rewrite
// everything would: change artifacts and events, re-store artifacts under
// their new ids, re-hash the whole chain, recompute the seal and render a
// fresh page. Only the meaning of the evidence can give it away.
func resealed(t *testing.T, b []byte, f func(bd *bundle, evs []map[string]any, put func(old string, v any) string)) []byte {
	t.Helper()
	return resealedEvents(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) []map[string]any {
		f(bd, evs, put)
		return evs
	})
}

// resealedEvents is resealed for an alteration that inserts or removes
// events: f returns the events to reseal.
func resealedEvents(t *testing.T, b []byte, f func(bd *bundle, evs []map[string]any, put func(old string, v any) string) []map[string]any) []byte {
	t.Helper()
	bd, _, err := parseBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	var evs []map[string]any
	for _, l := range bd.m.Events {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	put := func(old string, v any) string {
		data, err := canon.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		id := hashid.Sum(data).String()
		bd.arts[id] = data
		if old != "" && old != id {
			delete(bd.arts, old)
			for _, e := range evs {
				replaceString(e, old, id)
			}
		}
		return id
	}
	evs = f(bd, evs, put)
	bd.m.Events = bd.m.Events[:0]
	prev := chain.Genesis(bd.m.Run).String()
	var parsedEvs []chain.Event
	for _, e := range evs {
		e["prev"] = prev
		delete(e, "hash")
		c, _ := canon.Marshal(e)
		e["hash"] = hashid.Sum(c).String()
		prev = e["hash"].(string)
		line, _ := canon.Marshal(e)
		bd.m.Events = append(bd.m.Events, string(line))
		ce, _, _, err := chain.ParseLog("x", append(line, '\n'))
		if err != nil {
			t.Fatal(err)
		}
		parsedEvs = append(parsedEvs, ce...)
	}
	s, err := chain.ComputeSeal(bd.m.Run, bd.m.Seal.Plan, parsedEvs)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := s.Hash()
	bd.m.Seal, bd.m.SealHash = s, h.String()
	bd.sortArtifacts()
	page, err := bd.page()
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// withResumed inserts a run.resumed event after run.started, as a resume
// with --plan writes, and reseals: it names plan (the seal's when ""); with
// moveStart run.started names another plan, the one the run started under.
func withResumed(moveStart bool, plan string) func(t *testing.T, b []byte) []byte {
	return func(t *testing.T, b []byte) []byte {
		return resealedEvents(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) []map[string]any {
			p := plan
			if p == "" {
				p = bd.m.Seal.Plan
			}
			for i, e := range evs {
				if e["type"] != chain.TypeRunStarted {
					continue
				}
				if moveStart {
					e["data"].(map[string]any)["plan"] = hashid.Sum([]byte("first plan")).String()
				}
				r := map[string]any{"seq": 0, "time": e["time"], "type": "run.resumed", "data": map[string]any{"plan": p, "restored": []any{}}}
				evs = append(evs[:i+1], append([]map[string]any{r}, evs[i+1:]...)...)
				break
			}
			for i, e := range evs {
				e["seq"] = i + 1
			}
			return evs
		})
	}
}

func replaceString(v any, old, new string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && s == old {
				x[k] = new
			} else {
				replaceString(e, old, new)
			}
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok && s == old {
				x[i] = new
			} else {
				replaceString(e, old, new)
			}
		}
	}
}

// artifactWhere returns the id of the artifact whose text contains s.
func artifactWhere(t *testing.T, bd *bundle, s string) string {
	t.Helper()
	for _, id := range bd.order {
		if bytes.Contains(bd.arts[id], []byte(s)) {
			return id
		}
	}
	t.Fatalf("no artifact contains %q", s)
	return ""
}

func jsonOf(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// testKey is a fixed signing key for the tests.
var testKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
var otherKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))

var (
	signedOnce  sync.Once
	signedBytes []byte
)

// signedBundle is the fixture bundle signed with testKey.
func signedBundle(t *testing.T) []byte {
	t.Helper()
	signedOnce.Do(func() {
		_, r := fixtureBundle(t)
		h, _ := hashid.Parse(r.Seal)
		sig := Sign(h, testKey)
		var buf bytes.Buffer
		if err := WriteBundle(&buf, r.Dir, BundleOptions{Signature: &sig}); err != nil {
			t.Fatal(err)
		}
		signedBytes = buf.Bytes()
	})
	return append([]byte{}, signedBytes...)
}

func tampers() []tamper {
	snap := func(t *testing.T, bd *bundle) string { return artifactWhere(t, bd, `"sql":"SELECT region`) }
	mset := func(t *testing.T, bd *bundle) string { return artifactWhere(t, bd, `"substituted"`) }
	rep := func(t *testing.T, bd *bundle) string { return artifactWhere(t, bd, `"attempts"`) }
	flip := func(old, new string, which func(*testing.T, *bundle) string) func(t *testing.T, b []byte) []byte {
		return func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) {
				id := which(t, bd)
				bd.arts[id] = bytes.Replace(bd.arts[id], []byte(old), []byte(new), 1)
			})
		}
	}
	events := func(f func(t *testing.T, evs []string) []string) func(t *testing.T, b []byte) []byte {
		return func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.Events = f(t, bd.m.Events) })
		}
	}
	lineEdit := func(i int, old, new string) func(t *testing.T, b []byte) []byte {
		return events(func(t *testing.T, evs []string) []string {
			if !strings.Contains(evs[i], old) {
				t.Fatalf("event %d lacks %q", i+1, old)
			}
			evs[i] = strings.Replace(evs[i], old, new, 1)
			return evs
		})
	}
	metricEdit := func(f func(ms map[string]any)) func(t *testing.T, b []byte) []byte {
		return func(t *testing.T, b []byte) []byte {
			return resealed(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) {
				id := mset(t, bd)
				ms := jsonOf(t, bd.arts[id])
				f(ms)
				put(id, ms)
			})
		}
	}
	return []tamper{
		{"untouched", func(t *testing.T, b []byte) []byte { return b }, "", ""},
		{"post-seal event added", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) {
				var last chain.Event
				_ = json.Unmarshal([]byte(bd.m.Events[len(bd.m.Events)-1]), &last)
				e, err := chain.NewEvent(&last, bd.m.Run, last.Seq+1, mustTime(last.Time), "human.decided", "gate", map[string]any{"decision": "approve"})
				if err != nil {
					t.Fatal(err)
				}
				line, _ := e.Line()
				bd.m.Events = append(bd.m.Events, string(line))
			})
		}, "", ""},
		{"post-seal event with a bad hash", lineEditAppend(), "", ""},
		{"snapshot artifact one byte", flip("1200.5", "1200.6", snap), CheckArtifacts, ""},
		{"snapshot artifact masked value revealed", flip(`"***"`, `"Ann"`, snap), CheckArtifacts, ""},
		{"metric set artifact value", flip(`"value":2800`, `"value":2900`, mset), CheckArtifacts, ""},
		{"report artifact source byte", flip("Weekly", "weekly", rep), CheckArtifacts, ""},
		{"plan artifact byte", flip(`"weekly-sales"`, `"weekly-sa1es"`, func(t *testing.T, bd *bundle) string { return bd.m.Seal.Plan }), CheckArtifacts, ""},
		{"knowledge hit text", flip("leads all", "trails all", func(t *testing.T, bd *bundle) string { return artifactWhere(t, bd, `{"bm25"`) }), CheckArtifacts, ""},
		{"snapshot artifact removed", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { delete(bd.arts, snap(t, bd)) })
		}, CheckSeal, "missing"},
		{"plan artifact removed", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { delete(bd.arts, bd.m.Seal.Plan) })
		}, CheckPlan, "plan"},
		{"artifact moved to another id", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) {
				id := rep(t, bd)
				bd.arts["b3:"+strings.Repeat("ab", 32)] = bd.arts[id]
				delete(bd.arts, id)
			})
		}, CheckArtifacts, "abababababab"},
		{"event field edited", lineEdit(2, "db_query__sales", "db_query__salez"), CheckEvents, "event 3"},
		{"event time edited", lineEdit(4, "T09:00:05", "T09:00:06"), CheckEvents, "event 5"},
		{"event node edited", lineEdit(6, `"node":"docs"`, `"node":"dogs"`), CheckEvents, "event 7"},
		{"event deleted", events(func(t *testing.T, evs []string) []string { return append(evs[:6:6], evs[7:]...) }), CheckEvents, "event 7"},
		{"first event deleted", events(func(t *testing.T, evs []string) []string { return evs[1:] }), CheckEvents, "event 2"},
		{"events reordered", events(func(t *testing.T, evs []string) []string {
			evs[7], evs[8] = evs[8], evs[7]
			return evs
		}), CheckEvents, "event"},
		{"run.finished deleted", events(func(t *testing.T, evs []string) []string { return evs[:len(evs)-1] }), CheckEvents, "run.finished"},
		{"event duplicated", events(func(t *testing.T, evs []string) []string {
			return append(evs[:4:4], append([]string{evs[3]}, evs[4:]...)...)
		}), CheckEvents, "event"},
		{"event line not canonical", lineEdit(1, `{"hash"`, `{ "hash"`), CheckEvents, "canonical"},
		{"event with an unknown key", lineEdit(1, `{"hash"`, `{"extra":1,"hash"`), CheckEvents, "events"},
		{"event re-hashed after an edit", events(func(t *testing.T, evs []string) []string {
			var e chain.Event
			_ = json.Unmarshal([]byte(evs[2]), &e)
			e.Data = json.RawMessage(strings.Replace(string(e.Data), "pull:1", "pull:2", 1))
			h, _ := e.ComputeHash()
			e.Hash = h.String()
			l, _ := e.Line()
			evs[2] = string(l)
			return evs
		}), CheckEvents, "event 4"},
		{"whole chain rewritten (plan in run.started)", func(t *testing.T, b []byte) []byte {
			out := resealed(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) {})
			// a consistent forgery; then point run.started at another plan and re-hash without resealing
			return parsed(t, out, func(bd *bundle) {
				var e chain.Event
				_ = json.Unmarshal([]byte(bd.m.Events[0]), &e)
				e.Data = json.RawMessage(strings.Replace(string(e.Data), bd.m.Seal.Plan, "b3:"+strings.Repeat("cd", 32), 1))
				h, _ := e.ComputeHash()
				e.Hash = h.String()
				l, _ := e.Line()
				bd.m.Events[0] = string(l)
			})
		}, CheckEvents, "event 2"},
		{"seal hash edited", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.SealHash = "b3:" + strings.Repeat("00", 32) })
		}, CheckSeal, "000000000000"},
		{"seal head edited", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.Seal.Head = "b3:" + strings.Repeat("11", 32) })
		}, CheckSeal, "seal"},
		{"seal artifact list shortened", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.Seal.Artifacts = bd.m.Seal.Artifacts[1:] })
		}, CheckSeal, "seal"},
		{"seal and its hash edited together", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) {
				bd.m.Seal.Artifacts = bd.m.Seal.Artifacts[1:]
				h, _ := bd.m.Seal.Hash()
				bd.m.SealHash = h.String()
			})
		}, CheckSeal, "events seal to"},
		{"run id changed", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.Run = "other-run" })
		}, CheckEvents, "event 1"},
		{"metric value (resealed)", metricEdit(func(ms map[string]any) {
			ms["metrics"].([]any)[0].(map[string]any)["value"] = 2900
		}), CheckMetrics, "metric gmv"},
		{"metric substituted formula (resealed)", metricEdit(func(ms map[string]any) {
			ms["metrics"].([]any)[1].(map[string]any)["substituted"] = "1300.5 / 2800"
		}), CheckMetrics, "metric north_share"},
		{"metric cited cell (resealed)", metricEdit(func(ms map[string]any) {
			ms["metrics"].([]any)[0].(map[string]any)["cells"].([]any)[1].(map[string]any)["value"] = 900
		}), CheckMetrics, "metric gmv"},
		{"metric cites a missing row (resealed)", metricEdit(func(ms map[string]any) {
			ms["metrics"].([]any)[0].(map[string]any)["cells"].([]any)[1].(map[string]any)["row"] = 99
		}), CheckMetrics, "row 99"},
		{"snapshot cell behind a metric (resealed)", func(t *testing.T, b []byte) []byte {
			return resealed(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) {
				id := snap(t, bd)
				put(id, json.RawMessage(bytes.Replace(bd.arts[id], []byte("800"), []byte("810"), 1)))
			})
		}, CheckMetrics, "metric gmv"},
		{"run.resumed names another plan (resealed)", withResumed(false, hashid.Sum([]byte("other plan")).String()), CheckPlan, "run.resumed"},
		{"started under another plan, resumed under the sealed one (resealed)", withResumed(true, ""), "", ""},
		{"resumed under the same plan (resealed)", withResumed(false, ""), "", ""},
		{"ledger renumbered (resealed)", func(t *testing.T, b []byte) []byte {
			return resealed(t, b, func(bd *bundle, evs []map[string]any, put func(string, any) string) {
				id := artifactWhere(t, bd, `{"bm25"`)
				h := jsonOf(t, bd.arts[id])
				h["id"] = "K2"
				nid := put(id, h)
				for _, e := range evs {
					if e["type"] == "evidence.added" && e["data"].(map[string]any)["artifact"] == nid {
						e["data"].(map[string]any)["id"] = "K2"
					}
				}
			})
		}, CheckLedger, "K2"},
		{"report number in the visible text", func(t *testing.T, b []byte) []byte {
			return inReport(t, b, ">2,800.00 CNY<", ">2,900.00 CNY<")
		}, CheckReport, "m:gmv"},
		{"report unit number in the visible text", func(t *testing.T, b []byte) []byte { return inReport(t, b, ">0.28万<", ">0.29万<") }, CheckReport, "m:gmv"},
		{"report percent in the visible text", func(t *testing.T, b []byte) []byte { return inReport(t, b, ">42.9%<", ">52.9%<") }, CheckReport, "north_share"},
		{"report table cell", func(t *testing.T, b []byte) []byte { return inReport(t, b, ">800<", ">880<") }, CheckReport, "cell Q1.r1.amount"},
		{"report masked cell revealed", func(t *testing.T, b []byte) []byte { return inReport(t, b, ">***<", ">Ann<") }, CheckReport, "customer"},
		{"report narrative word", func(t *testing.T, b []byte) []byte {
			return inReport(t, b, ">Weekly brief for <", ">Monthly brief for <")
		}, CheckReport, "text"},
		{"report quotation", func(t *testing.T, b []byte) []byte {
			return inReport(t, b, ">the north region leads<", ">the south region leads<")
		}, CheckReport, "quotation"},
		{"report metric formula", func(t *testing.T, b []byte) []byte {
			return inReport(t, b, "sum(col(nodes.pull, &#39;amount&#39;))", "sum(col(nodes.pull, &#39;amount&#39;)) * 2")
		}, CheckReport, "formula"},
		{"report SQL", func(t *testing.T, b []byte) []byte {
			return inReport(t, b, "ORDER BY amount DESC", "ORDER BY amount ASC")
		}, CheckReport, "SQL"},
		{"report violation mark removed", func(t *testing.T, b []byte) []byte {
			b = inReport(t, b, `<mark class="al-violation" title="bare_number: a number without a marker">`, "")
			return inReport(t, b, "12</span></mark>", "12</span>")
		}, CheckReport, "report"},
		{"report metric swapped", func(t *testing.T, b []byte) []byte {
			return inReport(t, b, `data-n="gmv" data-set="kpi">2,800.00 CNY<`, `data-n="north_share" data-set="kpi">42.9%<`)
		}, CheckReport, "report"},
		{"report number element removed", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte(`<span class="al-ref al-num" tabindex="0" data-k="m"`))
			j := i + bytes.Index(b[i:], []byte("</span>")) + len("</span>")
			return append(append([]byte{}, b[:i]...), b[j:]...)
		}, CheckReport, "report"},
		{"report data snapshot (al-data)", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte(`id="al-data">`))
			j := i + bytes.Index(b[i:], []byte("1200.5"))
			out := append([]byte{}, b...)
			out[j+5] = '7'
			return out
		}, CheckEvidence, "al-data"},
		{"report data seal (al-data)", func(t *testing.T, b []byte) []byte {
			_, r := fixtureBundle(t)
			i := bytes.Index(b, []byte(`id="al-data">`))
			j := i + bytes.Index(b[i:], []byte(r.Seal))
			out := append([]byte{}, b...)
			out[j+10] ^= 1
			return out
		}, CheckEvidence, "al-data"},
		{"manifest JSON truncated", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte(manifestOpen)) + len(manifestOpen)
			j := i + bytes.Index(b[i:], []byte("</script>"))
			return append(append([]byte{}, b[:j-40]...), b[j:]...)
		}, CheckBundle, "manifest"},
		{"artifact JSON truncated", func(t *testing.T, b []byte) []byte {
			i := bytes.LastIndex(b, []byte(artifactOpen)) + len(artifactOpen)
			j := i + bytes.Index(b[i:], []byte("</script>"))
			return append(append([]byte{}, b[:j-10]...), b[j:]...)
		}, CheckBundle, "artifact block"},
		{"deeply nested JSON", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte(manifestOpen)) + len(manifestOpen)
			bomb := `{"x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `,`
			return append(append(append([]byte{}, b[:i]...), bomb...), b[i+1:]...)
		}, CheckBundle, "nested"},
		{"script injected", func(t *testing.T, b []byte) []byte {
			return mustReplace(t, b, "<aside id=\"al-panel\"", "<img src=\"https://example.invalid/x.png\"><aside id=\"al-panel\"", 1)
		}, CheckPage, "byte"},
		{"style changed", func(t *testing.T, b []byte) []byte { return mustReplace(t, b, "color:#7a0000", "color:#ffffff", 1) }, CheckPage, "byte"},
		{"title changed", func(t *testing.T, b []byte) []byte {
			return mustReplace(t, b, "<title>Bundle: Report: weekly-sales</title>", "<title>Bundle: Report: weekly-sale</title>", 1)
		}, CheckPage, "byte"},
		{"verifier script changed", func(t *testing.T, b []byte) []byte {
			return mustReplace(t, b, "This file does not match its seal", "This file does not match its sea1", 1)
		}, CheckPage, "byte"},
		{"CSP removed", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte(`<meta http-equiv="Content-Security-Policy"`))
			j := i + bytes.Index(b[i:], []byte(">\n")) + 2
			return append(append([]byte{}, b[:i]...), b[j:]...)
		}, CheckPage, "byte"},
	}
}

func lineEditAppend() func(t *testing.T, b []byte) []byte {
	return func(t *testing.T, b []byte) []byte {
		return parsed(t, b, func(bd *bundle) {
			var last chain.Event
			_ = json.Unmarshal([]byte(bd.m.Events[len(bd.m.Events)-1]), &last)
			e := chain.Event{Seq: last.Seq + 1, Time: last.Time, Type: "note", Prev: last.Hash, Hash: "b3:" + strings.Repeat("ef", 32)}
			line, _ := e.Line()
			bd.m.Events = append(bd.m.Events, string(line))
		})
	}
}

// signedTampers are variants of the signed bundle.
func signedTampers() []tamper {
	return []tamper{
		{"signed untouched", func(t *testing.T, b []byte) []byte { return b }, "", ""},
		{"signature byte flipped", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) {
				raw, _ := decodeB64(bd.m.Signature.Sig)
				raw[10] ^= 1
				bd.m.Signature.Sig = b64(raw)
			})
		}, CheckSignature, "does not match"},
		{"public key replaced", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.Signature.PublicKey = b64(otherKey.Public().(ed25519.PublicKey)) })
		}, CheckSignature, "signed by key"},
		{"signature truncated", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.Signature.Sig = bd.m.Signature.Sig[:20] })
		}, CheckSignature, "64 bytes"},
		{"signature algorithm", func(t *testing.T, b []byte) []byte {
			return parsed(t, b, func(bd *bundle) { bd.m.Signature.Alg = "rsa" })
		}, CheckSignature, "not ed25519"},
	}
}

func mustTime(s string) (t0 timeT) { return parseTime(s) }

// verifyVariant runs the Go verifier on one variant.
func verifyVariant(t *testing.T, b []byte, opt Options) *Result {
	t.Helper()
	res, err := VerifyBundle(b, opt)
	if err != nil {
		return &Result{OK: false, Checks: []Check{{Name: CheckBundle, OK: false, Detail: err.Error()}}}
	}
	return res
}

func failing(cs []Check) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		if !c.OK {
			out[c.Name] = c.Detail
		}
	}
	return out
}

func assertVerdict(t *testing.T, who string, tm tamper, ok bool, fails map[string]string) {
	t.Helper()
	if tm.check == "" {
		if !ok {
			t.Errorf("%s: %s: want pass, failing %v", who, tm.name, fails)
		}
		return
	}
	if ok {
		t.Errorf("%s: %s: want failure of %q, but it passed", who, tm.name, tm.check)
		return
	}
	d, has := fails[tm.check]
	if !has {
		t.Errorf("%s: %s: want check %q to fail, failing %v", who, tm.name, tm.check, fails)
		return
	}
	if tm.naming != "" && !strings.Contains(d, tm.naming) {
		t.Errorf("%s: %s: the %s detail does not name %q: %s", who, tm.name, tm.check, tm.naming, d)
	}
}

// TestTamperMatrix alters the sealed bundle in many ways and checks that
// verify fails on each with the right check naming the right item, and
// passes on the untouched bundle and on one with a post-seal event.
func TestTamperMatrix(t *testing.T) {
	base, _ := fixtureBundle(t)
	n := 0
	for _, tm := range tampers() {
		v := tm.alter(t, append([]byte{}, base...))
		res := verifyVariant(t, v, Options{})
		assertVerdict(t, "go", tm, res.OK, failing(res.Checks))
		n++
	}
	signed := signedBundle(t)
	pub := testKey.Public().(ed25519.PublicKey)
	for _, tm := range signedTampers() {
		v := tm.alter(t, append([]byte{}, signed...))
		res := verifyVariant(t, v, Options{PublicKey: pub})
		assertVerdict(t, "go", tm, res.OK, failing(res.Checks))
		n++
	}
	if n < 40 {
		t.Fatalf("only %d variants", n)
	}
}

// TestTamperMatrixBrowser opens every variant of the matrix in headless
// Chromium and requires the same verdict as the Go verifier.
func TestTamperMatrixBrowser(t *testing.T) {
	browser(t)
	base, _ := fixtureBundle(t)
	dir := t.TempDir()
	run := func(i int, tm tamper, v []byte, opt Options) {
		p := filepath.Join(dir, fmt.Sprintf("v%02d.html", i))
		if err := os.WriteFile(p, v, 0o644); err != nil {
			t.Fatal(err)
		}
		goRes := verifyVariant(t, v, opt)
		br := openBundle(t, p)
		if !agree(t, tm.name, goRes, br) {
			return
		}
		bf := failing(br.Checks)
		if tm.check != "" && br.Status == "fail" {
			// the script ran: it must blame the same kind of item, unless
			// only the page chrome changed (the Go verifier compares bytes)
			if _, ok := bf[tm.check]; !ok && tm.check != CheckPage {
				t.Errorf("%s: browser failing %v, want %q among them", tm.name, bf, tm.check)
			}
		}
	}
	for i, tm := range tampers() {
		run(i, tm, tm.alter(t, append([]byte{}, base...)), Options{})
	}
	signed := signedBundle(t)
	for i, tm := range signedTampers() {
		run(100+i, tm, tm.alter(t, append([]byte{}, signed...)), Options{})
	}
}

func b64(b []byte) string { return encodeB64(b) }

type timeT = time.Time

func parseTime(s string) time.Time {
	t, _ := time.Parse(chain.TimeLayout, s)
	return t.Add(time.Second)
}

func encodeB64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestForgeryNeedsAnAnchor: a complete, consistent re-seal of different
// evidence passes every integrity check; only a seal pinned elsewhere
// (--expect) or a trusted signing key catches it.
func TestForgeryNeedsAnAnchor(t *testing.T) {
	base, r := fixtureBundle(t)
	forged := resealed(t, base, func(bd *bundle, evs []map[string]any, put func(string, any) string) {
		id := artifactWhere(t, bd, `"attempts"`)
		rep := jsonOf(t, bd.arts[id])
		rep["source"] = strings.Replace(rep["source"].(string), "Weekly brief", "Weekly forged brief", 1)
		delete(rep, "violations")
		put(id, rep)
	})
	res := verifyVariant(t, forged, Options{})
	if !res.OK {
		t.Fatalf("a consistent forgery should pass integrity checks: %v", failing(res.Checks))
	}
	res = verifyVariant(t, forged, Options{Expect: r.Seal})
	if d, ok := failing(res.Checks)[CheckExpect]; res.OK || !ok || !strings.Contains(d, r.Seal) {
		t.Fatalf("--expect did not catch the forgery: %+v", res)
	}
	res = verifyVariant(t, forged, Options{PublicKey: testKey.Public().(ed25519.PublicKey)})
	if _, ok := failing(res.Checks)[CheckSignature]; res.OK || !ok {
		t.Fatalf("--pubkey did not catch the unsigned forgery: %+v", res)
	}
}
