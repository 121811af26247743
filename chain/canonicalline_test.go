package chain

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

var canonicalLineSeeds = []string{
	`{"data":{"a":[1,2.5,"x\n",null,true,{"b":{}}],"z":"é"},"hash":"b3:00","node":"n","prev":"b3:11","seq":3,"time":"2026-01-01T00:00:00.000000000Z","type":"tool.result"}`,
	`{"hash":"b3:00","prev":"b3:11","seq":1,"time":"t","type":"run.started"}`,
	`{"data":null,"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":{"b":1,"a":2},"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":{"a":1.50},"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":{"a":"\u001f\u0001\/"},"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":{"a":"\u000a"},"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":-0,"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":1e3,"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":[01],"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"hash":"h","node":"","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"hash":"h","prev":"p","seq":0,"time":"t","type":"x"}`,
	`{"hash":"h","prev":"p","seq":1,"time":"t","type":"x","x":1}`,
	`{"hash":"h","prev":"p","seq":1,"time":"t"}`,
	`{"hash":"h","prev":"p","seq":1,"type":"x"}`,
	`{"hash":"h","prev":"p","seq":1.0,"time":"t","type":"x"}`,
	`{"hash":"h", "prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"hash":"h","prev":"p","seq":1,"time":"t","type":"x\u00e9"}`,
	`{"data":{"a":"` + "\xff" + `"},"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	`{"data":{"é":1,"z":2},"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`,
	// invalid UTF-8 in the fields the scanner reads as strings
	`{"hash":"h","prev":"p","seq":1,"time":"t` + "\xff" + `","type":"x"}`,
	`{"hash":"h","prev":"p` + "\xc3" + `","seq":1,"time":"t","type":"x"}`,
	`{"hash":"h","prev":"p","seq":1,"time":"t","type":"x` + "\xff" + `"}`,
}

// TestReadCanonicalLineAgrees: whatever the fast reader accepts, the
// strict reader accepts as canonical and reads to the same event.
func TestReadCanonicalLineAgrees(t *testing.T) {
	accepted := 0
	for _, l := range canonicalLineSeeds {
		if checkFastLine(t, l) {
			accepted++
		}
	}
	if accepted < 2 {
		t.Fatalf("ReadCanonicalLine accepted %d seeds; the fast path is never taken", accepted)
	}
}

func checkFastLine(t *testing.T, l string) bool {
	t.Helper()
	e, ok := ReadCanonicalLine([]byte(l))
	if !ok {
		return false
	}
	// The strict reader: encoding/json, then the line compared with the
	// event's canonical form (what ParseLog does with a line the fast
	// reader refuses).
	g, err := decodeLine([]byte(l))
	if err != nil {
		t.Fatalf("ReadCanonicalLine accepted %q, the strict reader refuses it: %v", l, err)
	}
	if c, err := g.Line(); err != nil || string(c) != l {
		t.Fatalf("ReadCanonicalLine accepted %q, which is not canonical (%s, %v)", l, c, err)
	}
	if string(g.Data) != string(e.Data) {
		t.Fatalf("data of %q: %s vs %s", l, e.Data, g.Data)
	}
	e.Data, g.Data = nil, nil
	if !reflect.DeepEqual(e, g) {
		t.Fatalf("ReadCanonicalLine read %q as %+v, the strict reader as %+v", l, e, g)
	}
	return true
}

func FuzzReadCanonicalLine(f *testing.F) {
	for _, l := range canonicalLineSeeds {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if strings.ContainsRune(l, '\n') {
			return
		}
		checkFastLine(t, l)
	})
}

// TestReadCanonicalLineTakesCanonicalLines checks that the fast path accepts what
// the writer writes (spaces and escapes in data, numbers of several
// digits, every key): refusing them would send every large log down the
// slow path. Each line is made by NewEvent, the writer itself.
func TestReadCanonicalLineTakesCanonicalLines(t *testing.T) {
	var prev *Event
	for i, data := range []any{
		map[string]any{"text": "two words, and a tab\tand a newline\n", "ctl": "\x01\x1f"},
		map[string]any{"n": []any{12, 345, -9007199254740992, 1.5, 1e-7, 1e21}},
		map[string]any{"deep": map[string]any{"b": []any{true, false, nil, "é"}}},
		nil,
	} {
		e, err := NewEvent(prev, "r", int64(i+1), lineTestTime, "tool.result", "node one", data)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := e.Line()
		got, ok := ReadCanonicalLine(line)
		if !ok {
			t.Errorf("fastLine refuses the writer's line %s", line)
			continue
		}
		if got.Hash != e.Hash || got.Seq != e.Seq || string(got.Data) != string(e.Data) {
			t.Errorf("fastLine read %s as %+v", line, got)
		}
		checkFastLine(t, string(line))
		prev = &e
	}
}

// TestReadCanonicalLineForgedEscapes feeds the fast path the escapes canon never
// writes (a short-escape character spelled \u00xx, uppercase hex, a space
// escaped): none may be accepted, since another verifier would hash the
// decoded line differently. The same lines are seeds of FuzzFastLine.
func TestReadCanonicalLineForgedEscapes(t *testing.T) {
	for _, esc := range []string{`\u0008`, `\u0009`, `\u000a`, `\u000c`, `\u000d`, `\u0020`, `\u001F`, `\u00e9`, `\/`, `\x`, `\u12`} {
		l := `{"data":{"a":"` + esc + `"},"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`
		if _, ok := ReadCanonicalLine([]byte(l)); ok {
			t.Errorf("fastLine accepts the escape %s", esc)
		}
		checkFastLine(t, l)
	}
}

// TestScannerRefusesForgedStrings: the canonical-string scanner refuses a
// raw control character and a value that is not a string at all, rather
// than reporting success without moving.
func TestScannerRefusesForgedStrings(t *testing.T) {
	// The data's strings are checked by canon's reader: a raw control
	// character, or an escape JSON allows but canon never writes, makes a
	// line not the writer's, so the fast path must hand it to the slow one.
	for _, in := range []string{"\"a\tb\"", "\"a\x01\"", "\"\x1f\"", `"a\/b"`, `"\u0041"`, `"\u000A"`, `"\u000a"`, `"a\x"`, `"a\`} {
		if _, ok := ReadCanonicalLine([]byte(`{"data":` + in + `,"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`)); ok {
			t.Errorf("data %q was read as canonical", in)
		}
	}
	if _, ok := ReadCanonicalLine([]byte(`{"data":"\u001f","hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`)); !ok {
		t.Error(`data "\u001f" (canon's own escape of a control) was refused`)
	}
	for _, in := range []string{"5", "null", "{}", "x\""} {
		s := scanner{b: []byte(in), s: in}
		if _, ok := s.plainString(); ok {
			t.Errorf("plainString(%q) accepted a non-string", in)
		}
	}
	s := scanner{b: []byte(`"ok"`), s: `"ok"`}
	if v, ok := s.plainString(); !ok || v != "ok" {
		t.Errorf("plainString of a plain string: %q %v", v, ok)
	}
}

var lineTestTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestLinkerNextCanonicalAgrees: on events read from canonical lines,
// NextCanonical finds exactly what Next finds, for an intact chain and
// for one whose data, hash or link was altered.
func TestLinkerNextCanonicalAgrees(t *testing.T) {
	var evs []Event
	var prev *Event
	for i, data := range []any{map[string]any{"a": 1}, "text\n", nil, []any{1.5, "x"}} {
		e, err := NewEvent(prev, "run-1", int64(i+1), lineTestTime, "x", "n", data)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
		prev = &evs[len(evs)-1]
	}
	alter := map[string]func([]Event){
		"intact":       func([]Event) {},
		"data changed": func(es []Event) { es[1].Data = []byte(`"other"`) },
		"hash changed": func(es []Event) { es[2].Hash = es[1].Hash },
		"link broken":  func(es []Event) { es[3].Prev = es[1].Hash },
		"seq skipped":  func(es []Event) { es[2].Seq = 4 },
	}
	for name, f := range alter {
		es := append([]Event(nil), evs...)
		f(es)
		a, b := NewLinker("run-1"), NewLinker("run-1")
		var pa, pb []Problem
		for _, e := range es {
			pa, pb = a.Next(e, pa), b.NextCanonical(e, pb)
		}
		if !reflect.DeepEqual(pa, pb) {
			t.Errorf("%s: Next %v, NextCanonical %v", name, pa, pb)
		}
		if (name == "intact") != (len(pa) == 0) {
			t.Errorf("%s: problems %v", name, pa)
		}
	}
}

// TestReadCanonicalLineEdges: lines at the edges of what the canonical
// reader takes. Those it must take are the writer's forms (numbers of
// every kind, escapes, data nested to the limit); those it must refuse
// would each be read differently, or refused, by the strict reader (an
// empty hash or type, a missing key, an integer past 2^53, an escape cut
// short or canon never writes, a string never closed, nesting past the
// limit, bytes after the object).
func TestReadCanonicalLineEdges(t *testing.T) {
	const tail = `"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`
	nest := func(depth int) string {
		return `{"data":` + strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth) + "," + tail
	}
	for _, tc := range []struct {
		name, line string
		take       bool
	}{
		{"numbers", `{"data":[-1,0,1.5,-2.5e-7,1e+21,9007199254740992,-9007199254740992],` + tail, true},
		{"escapes", `{"data":"a\\b\"c\n\u001f\u0000","hash":"h","node":"n","prev":"p","seq":1,"time":"t","type":"x"}`, true},
		{"nested to the limit", nest(canon.MaxFastDepth), true},
		{"seq of many digits", `{"hash":"h","prev":"p","seq":123456789,"time":"t","type":"x"}`, true},
		{"nested past the limit", nest(canon.MaxFastDepth + 1), false},
		{"empty hash", `{"hash":"","prev":"p","seq":1,"time":"t","type":"x"}`, false},
		{"empty type", `{"hash":"h","prev":"p","seq":1,"time":"t","type":""}`, false},
		{"no time", `{"hash":"h","prev":"p","seq":1,"type":"x"}`, false},
		{"no prev", `{"hash":"h","seq":1,"time":"t","type":"x"}`, false},
		{"no hash", `{"prev":"p","seq":1,"time":"t","type":"x"}`, false},
		{"seq past 2^53", `{"hash":"h","prev":"p","seq":9007199254740993,"time":"t","type":"x"}`, false},
		{"seq negative", `{"hash":"h","prev":"p","seq":-1,"time":"t","type":"x"}`, false},
		{"data integer past 2^53", `{"data":9007199254740993,` + tail, false},
		{"data number with a plus", `{"data":+1,` + tail, false},
		{"escape cut short", `{"data":"\u00",` + tail, false},
		{"escape at the end", `{"data":"\u001`, false},
		{"escape of a printable", `{"data":"\u0020",` + tail, false},
		{"escape in capitals", `{"data":"\u001F",` + tail, false},
		{"short escape spelled long", `{"data":"\u000a",` + tail, false},
		{"string never closed", `{"data":"abc`, false},
		{"bytes after the object", `{"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}x`, false},
		{"data null", `{"data":null,` + tail, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := []byte(tc.line)
			line = line[:len(line):len(line)] // no spare capacity for a reader to run into
			_, took := ReadCanonicalLine(line)
			if took != tc.take {
				t.Fatalf("took %v, want %v: %s", took, tc.take, tc.line)
			}
			checkFastLine(t, tc.line)
		})
	}
}

// TestProblemMessagesShortenHashes: a problem names a hash by its short
// form and anything else quoted, so a forged value cannot pass for one.
func TestProblemMessagesShortenHashes(t *testing.T) {
	id := hashid.Sum([]byte("x"))
	if got := short(id.String()); got != id.Short() {
		t.Errorf("short(%s) = %s, want %s", id, got, id.Short())
	}
	if got := short("b3:nothex"); got != `"b3:nothex"` {
		t.Errorf("short of a non-hash = %s", got)
	}
}

// TestReadCanonicalLineTextNeedsTheSameText: the text given beside a line
// must be the line's own bytes; any other length is refused, not read.
func TestReadCanonicalLineTextNeedsTheSameText(t *testing.T) {
	line := []byte(`{"hash":"h","prev":"p","seq":1,"time":"t","type":"x"}`)
	if _, ok := ReadCanonicalLineText(line, string(line[1:])); ok {
		t.Error("a text shorter than the line was taken")
	}
	if e, ok := ReadCanonicalLineText(line, string(line)); !ok || e.Hash != "h" || e.Type != "x" {
		t.Errorf("the line with its own text: %+v %v", e, ok)
	}
}

// TestAppendLineIsTheLine: the writers' fast path writes exactly the line
// Line gives, hash member included.
func TestAppendLineIsTheLine(t *testing.T) {
	e, err := NewEvent(nil, "r", 1, lineTestTime, "x", "n", map[string]any{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := e.Line()
	if got := e.AppendLine([]byte("prefix:")); string(got) != "prefix:"+string(want) {
		t.Fatalf("AppendLine = %s, want prefix:%s", got, want)
	}
}

// TestParseLogRefusesAnEventWithoutItsKeys: a line that is an object but
// lacks seq, type or hash is no event: before the last line it is an
// error at its line, not an event with empty fields.
func TestParseLogRefusesAnEventWithoutItsKeys(t *testing.T) {
	good := `{"hash":"h","prev":"p","seq":2,"time":"t","type":"x"}` + "\n"
	for _, bad := range []string{
		`{"prev":"p","seq":1,"time":"t","type":"x"}`,
		`{"hash":"h","prev":"p","time":"t","type":"x"}`,
		`{"hash":"h","prev":"p","seq":1,"time":"t"}`,
	} {
		_, _, _, err := ParseLog("events.jsonl", []byte(bad+"\n"+good))
		var le *LineError
		if !errors.As(err, &le) || le.Line != 1 {
			t.Errorf("%s: %v, want an error at line 1", bad, err)
		}
	}
}

// TestParseLogTakesCanonicalLinesTheFastReaderLeaves: a canonical line the
// fast reader leaves to the strict one (data nested past its limit) is an
// event without a problem, not a line reported as not canonical.
func TestParseLogTakesCanonicalLinesTheFastReaderLeaves(t *testing.T) {
	deep := strings.Repeat("[", canon.MaxFastDepth+1) + "1" + strings.Repeat("]", canon.MaxFastDepth+1)
	e, err := NewEvent(nil, "r", 1, lineTestTime, "x", "", CanonicalJSON(deep))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := e.Line()
	if _, ok := ReadCanonicalLine(line); ok {
		t.Fatal("the fast reader took data past its nesting limit")
	}
	evs, probs, torn, err := ParseLog("events.jsonl", append(line, '\n'))
	if err != nil || len(probs) > 0 || torn != nil || len(evs) != 1 || evs[0].Hash != e.Hash {
		t.Fatalf("%d events, problems %v, torn %v, %v", len(evs), probs, torn, err)
	}
}

// TestPlainStringCutShort: a line ending inside one of its plain strings
// is refused without reading past its end.
func TestPlainStringCutShort(t *testing.T) {
	for _, in := range []string{`{"hash":"h`, `{"hash`, `{"hash":"h","prev":"p","seq":1,"time":"t","type":"x`} {
		b := []byte(in)
		if _, ok := ReadCanonicalLine(b[:len(b):len(b)]); ok {
			t.Errorf("%s was taken", in)
		}
	}
}
