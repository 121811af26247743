package engine

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
)

// FuzzPrepareInputs feeds arbitrary --input values and --input-file
// objects: PrepareInputs must never panic, and what it accepts must be
// JSON that round-trips.
func FuzzPrepareInputs(f *testing.F) {
	f.Add("n", "42", `{"q":"x"}`)
	f.Add("b", "true", `{"tags":[1,2]}`)
	f.Add("tags", "[", `{}`)
	f.Add("obj", `{"a":{"b":null}}`, `{"n":1e400}`)
	f.Add("f", "NaN", `{"mode":"fast"}`)
	f.Add("f", "-0", `{"obj":{"z":-0.0,"big":9007199254740993}}`)
	decls := map[string]plan.Input{
		"q":    {Type: "string"},
		"n":    {Type: "integer", Default: 1.0},
		"f":    {Type: "number"},
		"b":    {Type: "boolean"},
		"tags": {Type: "array"},
		"obj":  {Type: "object"},
		"mode": {Type: "string", Enum: []any{"fast", "slow"}},
	}
	f.Fuzz(func(t *testing.T, name, value, file string) {
		raw := map[string]any{}
		_ = json.Unmarshal([]byte(file), &raw)
		raw[name] = value
		got, err := PrepareInputs(decls, raw)
		if err != nil {
			return
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("accepted inputs do not marshal: %v", err)
		}
		// A resumed run reads its inputs back from the record's canonical
		// JSON: they must be exactly what the fresh run saw.
		b, err := canon.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("inputs %#v read back from the record as %#v (%v)", got, back, err)
		}
	})
}

// FuzzNewPrior feeds arbitrary node.finished payloads, as a damaged or
// hand-edited log could hold: NewPrior must return an error, not panic.
func FuzzNewPrior(f *testing.F) {
	f.Add(`{"output":{"text":"hi"},"vars":{"a":1},"port":"yes"}`)
	f.Add(`{"output_artifact":"b3:0000000000000000000000000000000000000000000000000000000000000000"}`)
	f.Add(`{"output_artifact":"nope"}`)
	f.Add(`[1,2]`)
	f.Add(`{"nodes":{"x":null},"vars":null}`)
	f.Fuzz(func(t *testing.T, data string) {
		if !json.Valid([]byte(data)) {
			return
		}
		evs := []RecordedEvent{{Type: EvNodeFinished, Node: "n", Data: json.RawMessage(data)}, {Type: EvNodeSkipped, Node: "m"}}
		get := func(hashid.ID) ([]byte, error) { return []byte(data), nil }
		p, err := NewPrior(evs, get)
		if err == nil && p.Finished() != 1 {
			t.Fatalf("finished = %d", p.Finished())
		}
	})
}
