package chain

import (
	"bytes"
	"testing"
)

// FuzzParseLog feeds arbitrary bytes to the events.jsonl reader: it must
// never panic, and whatever it accepts must be whole lines that re-encode to
// events, with any torn tail lying inside the input.
func FuzzParseLog(f *testing.F) {
	f.Add([]byte(`{"hash":"b3:00","prev":"b3:00","seq":1,"time":"2026-11-29T12:00:00.000000000Z","type":"run.started"}` + "\n"))
	f.Add([]byte("{\"seq\":1\n"))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"seq":1,"type":"x","hash":"h","extra":true}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, _, torn, err := ParseLog("events.jsonl", b)
		if err != nil {
			return
		}
		if torn != nil && (torn.Offset < 0 || torn.Offset > int64(len(b)) || torn.Offset+int64(torn.Bytes) != int64(len(b))) {
			t.Fatalf("torn tail %+v outside input of %d bytes", torn, len(b))
		}
		end := int64(len(b))
		if torn != nil {
			end = torn.Offset
		}
		if n := int64(bytes.Count(b[:end], []byte("\n"))); n != int64(len(evs)) {
			t.Fatalf("%d events from %d whole lines", len(evs), n)
		}
		for _, e := range evs {
			if _, err := e.Line(); err != nil {
				t.Fatalf("accepted event does not re-encode: %v", err)
			}
		}
	})
}
