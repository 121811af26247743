package chain

import (
	"reflect"
	"testing"
)

func TestDecodeCanonicalLine(t *testing.T) {
	const tail = `"prev":"b3:p","seq":7,"time":"2026-11-29T12:00:00.000000000Z","type":"node.finished"}`
	for _, tc := range []struct {
		name, line string
		ok         bool
	}{
		{"data and node", `{"data":{"a":[1,"x,\"hash\":\"y"],"b":null},"hash":"b3:h","node":"n",` + tail, true},
		{"no data", `{"hash":"b3:h","node":"n",` + tail, true},
		{"no node", `{"data":1,"hash":"b3:h",` + tail, true},
		{"neither", `{"hash":"b3:h",` + tail, true},
		{"escaped node", `{"hash":"b3:h","node":"a\"b",` + tail, false},
		{"keys out of order", `{"hash":"b3:h","data":1,` + tail, false},
		{"data not canonical", `{"data":{"b":1,"a":2},"hash":"b3:h",` + tail, false},
		{"data not JSON", `{"data":1,"x":2,"hash":"b3:h",` + tail, false},
		{"seq zero", `{"hash":"b3:h","prev":"b3:p","seq":0,"time":"t","type":"x"}`, false},
		{"seq leading zero", `{"hash":"b3:h","prev":"b3:p","seq":07,"time":"t","type":"x"}`, false},
		{"empty hash", `{"hash":"",` + tail, false},
		{"extra key", `{"hash":"b3:h","more":"m",` + tail, false},
		{"no brace", `"hash":"b3:h",` + tail, false},
		{"invalid UTF-8", "{\"hash\":\"b3:\xff\"," + tail, false},
		{"space", `{"hash": "b3:h",` + tail, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := decodeCanonicalLine([]byte(tc.line))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			want, err := decodeLine([]byte(tc.line))
			if err != nil {
				t.Fatalf("the strict decoder refuses a line the fast one took: %v", err)
			}
			if !reflect.DeepEqual(e, want) {
				t.Fatalf("fast %+v, strict %+v", e, want)
			}
		})
	}
}

// FuzzDecodeCanonicalLine: whatever the fast reader takes, the strict
// decoder reads as the same event, and it writes back to the same line.
func FuzzDecodeCanonicalLine(f *testing.F) {
	f.Add([]byte(`{"data":{"k":"v"},"hash":"b3:h","node":"n","prev":"b3:p","seq":1,"time":"t","type":"x"}`))
	f.Add([]byte(`{"hash":"b3:h","prev":"b3:p","seq":12,"time":"t","type":"x"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, ok := decodeCanonicalLine(line)
		if !ok {
			return
		}
		want, err := decodeLine(line)
		if err != nil {
			t.Fatalf("strict decoder refuses %q: %v", line, err)
		}
		if !reflect.DeepEqual(e, want) {
			t.Fatalf("%q: fast %+v, strict %+v", line, e, want)
		}
		if c, err := want.Line(); err != nil || string(c) != string(line) {
			t.Fatalf("%q is not canonical: %q %v", line, c, err)
		}
	})
}
