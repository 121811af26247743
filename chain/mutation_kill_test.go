package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// logOf joins the canonical lines of evs into an events.jsonl body.
func logOf(t *testing.T, evs []Event) []byte {
	t.Helper()
	var b []byte
	for _, e := range evs {
		l, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, l...), '\n')
	}
	return b
}

// TestParseLogReadsAnIntactLog is the baseline the attacks below depart
// from: every event comes back, seq 1 included, with no problem.
func TestParseLogReadsAnIntactLog(t *testing.T) {
	evs := buildChain(t, "r1")
	got, probs, torn, err := ParseLog("events.jsonl", logOf(t, evs))
	if err != nil || torn != nil || len(probs) != 0 {
		t.Fatalf("intact log: err %v, torn %v, problems %v", err, torn, probs)
	}
	if len(got) != len(evs) || got[0].Seq != 1 || got[5].Hash != evs[5].Hash {
		t.Fatalf("read %d events, want %d", len(got), len(evs))
	}
}

// TestParseLogForgerLines feeds ParseLog lines an editor of the log could
// write, before the last line, where none may be torn: each must be a
// *LineError at its own line and column.
func TestParseLogForgerLines(t *testing.T) {
	evs := buildChain(t, "r1")
	good := logOf(t, evs[:1])
	rest := logOf(t, evs[1:2])
	l1 := strings.TrimSuffix(string(good), "\n")
	tests := []struct {
		name    string
		bad     string
		col     int
		message string
	}{
		{"unknown key after a complete event", l1[:len(l1)-1] + `,"zz":1}`, 1, "unknown field"},
		{"two values on one line", l1 + " " + l1, 1, "more than one JSON value"},
		{"empty line", "", 1, "the line is empty"},
		{"event cut short", l1[:20], 21, "ends in the middle"},
		{"no seq", `{"hash":"h","type":"t"}`, 1, `lacks "seq"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := append(append(append([]byte{}, good...), tt.bad+"\n"...), rest...)
			_, _, torn, err := ParseLog("events.jsonl", b)
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got err %v, torn %v; want a LineError", err, torn)
			}
			if le.Line != 2 || le.Col != tt.col || !strings.Contains(le.Msg, tt.message) {
				t.Errorf("got line %d col %d %q; want line 2 col %d containing %q", le.Line, le.Col, le.Msg, tt.col, tt.message)
			}
		})
	}
}

// TestParseLogTornLastLine checks that a crash mid-write (a last line that
// is complete but unreadable, or has no newline) is a torn tail, not an error.
func TestParseLogTornLastLine(t *testing.T) {
	evs := buildChain(t, "r1")
	good := logOf(t, evs[:2])
	for _, tail := range []string{"garbage\n", `{"seq":3`} {
		got, _, torn, err := ParseLog("events.jsonl", append(append([]byte{}, good...), tail...))
		if err != nil || torn == nil {
			t.Fatalf("tail %q: err %v, torn %v", tail, err, torn)
		}
		if torn.Offset != int64(len(good)) || torn.Bytes != len(tail) || len(got) != 2 {
			t.Errorf("tail %q: torn %+v after %d events, want offset %d, %d bytes", tail, torn, len(got), len(good), len(tail))
		}
	}
}

// TestParseLogNonCanonicalLineNumbered checks that a re-spelled line is
// reported with its own line number.
func TestParseLogNonCanonicalLineNumbered(t *testing.T) {
	evs := buildChain(t, "r1")
	b := logOf(t, evs)
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[2] = bytes.Replace(lines[2], []byte(`{"data":`), []byte(`{ "data":`), 1)
	_, probs, _, err := ParseLog("events.jsonl", bytes.Join(lines, nil))
	if err != nil || len(probs) != 1 || probs[0].Seq != 3 || !strings.Contains(probs[0].Message, "line 3 ") {
		t.Fatalf("err %v, problems %v; want one problem at line 3", err, probs)
	}
}

// TestVerifyChainForgerDataWithoutCanonicalForm rebuilds an event whose data
// has no canonical form (a number beyond float64, text that is not JSON):
// no hash can be computed, so the chain must say so at that event.
func TestVerifyChainForgerDataWithoutCanonicalForm(t *testing.T) {
	for _, data := range []string{`{"n":1e400}`, `x`, `{"a":`} {
		evs := buildChain(t, "r1")
		evs[2].Data = json.RawMessage(data)
		if _, err := evs[2].ComputeHash(); err == nil {
			t.Errorf("ComputeHash of data %s: no error", data)
		}
		if _, err := evs[2].Line(); err == nil {
			t.Errorf("Line of data %s: no error", data)
		}
		ps := VerifyChain("r1", evs)
		if len(ps) != 1 || ps[0].Seq != 3 || !strings.Contains(ps[0].Message, "cannot hash") {
			t.Errorf("data %s: problems %v, want one \"cannot hash\" at seq 3", data, ps)
		}
	}
}

// TestVerifyChainDeletedEvents removes events from a longer log: one missing
// event and a run of them are told apart, each exactly once.
func TestVerifyChainDeletedEvents(t *testing.T) {
	evs := buildChain(t, "r1")
	tests := []struct {
		name string
		keep []int
		want string
	}{
		{"one missing", []int{0, 1, 3, 4, 5}, "missing: seq jumps from 2 to 4"},
		{"three missing", []int{0, 4, 5}, "missing: seq jumps from 1 to 5 (events 2-4 absent)"},
	}
	for _, tt := range tests {
		var cut []Event
		for _, i := range tt.keep {
			cut = append(cut, evs[i])
		}
		var msgs []string
		for _, p := range VerifyChain("r1", cut) {
			if strings.HasPrefix(p.Message, "missing") {
				msgs = append(msgs, p.Message)
			}
		}
		if len(msgs) != 1 || msgs[0] != tt.want {
			t.Errorf("%s: %q, want [%q]", tt.name, msgs, tt.want)
		}
	}
}

// TestNewEventEmptyRawData checks that an empty json.RawMessage is no data,
// as nil is, rather than an error or an empty "data" member.
func TestNewEventEmptyRawData(t *testing.T) {
	e, err := NewEvent(nil, "r1", 1, t0, TypeRunStarted, "", json.RawMessage{})
	if err != nil || e.Data != nil {
		t.Fatalf("got data %q, err %v", e.Data, err)
	}
}

// TestLineSeqIsDecimal pins seq to base 10 beyond one digit: a verifier in
// another language reads "seq":12 as twelve.
func TestLineSeqIsDecimal(t *testing.T) {
	l, err := Event{Seq: 12, Time: "t", Type: "a", Prev: "p", Hash: "h"}.Line()
	if err != nil || !bytes.Contains(l, []byte(`"seq":12,`)) {
		t.Fatalf("line %s, err %v", l, err)
	}
}

// TestComputeSealRunFinishedFirst seals a log whose only event is
// run.finished: the sealed prefix ends at index 0.
func TestComputeSealRunFinishedFirst(t *testing.T) {
	e, err := NewEvent(nil, "r1", 1, t0, TypeRunFinished, "", map[string]any{"status": "failed"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ComputeSeal("r1", "b3:"+strings.Repeat("1", 64), []Event{e})
	if err != nil || s.Seq != 1 || s.Head != e.Hash {
		t.Fatalf("seal %+v, err %v", s, err)
	}
}
