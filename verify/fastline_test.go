package verify

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/chain"
)

var fastLineSeeds = []string{
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

// TestFastLineAgrees: whatever fastLine accepts, chain.ParseLog accepts
// without a problem and reads to the same event.
func TestFastLineAgrees(t *testing.T) {
	accepted := 0
	for _, l := range fastLineSeeds {
		if checkFastLine(t, l) {
			accepted++
		}
	}
	if accepted < 2 {
		t.Fatalf("fastLine accepted %d seeds; the fast path is never taken", accepted)
	}
}

func checkFastLine(t *testing.T, l string) bool {
	t.Helper()
	e, ok := fastLine([]byte(l))
	if !ok {
		return false
	}
	evs, probs, torn, err := chain.ParseLog("x", []byte(l+"\n"))
	if err != nil || len(probs) > 0 || torn != nil || len(evs) != 1 {
		t.Fatalf("fastLine accepted %q, ParseLog: %v %v %v", l, err, probs, torn)
	}
	g := evs[0]
	if string(g.Data) != string(e.Data) {
		t.Fatalf("data of %q: %s vs %s", l, e.Data, g.Data)
	}
	e.Data, g.Data = nil, nil
	if !reflect.DeepEqual(e, g) {
		t.Fatalf("fastLine read %q as %+v, ParseLog as %+v", l, e, g)
	}
	return true
}

func FuzzFastLine(f *testing.F) {
	for _, l := range fastLineSeeds {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if strings.ContainsRune(l, '\n') {
			return
		}
		checkFastLine(t, l)
	})
}
