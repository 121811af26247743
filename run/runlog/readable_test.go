package runlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestDeeplyNestedInputStaysLinear: an input of nine thousand nested
// lists (18 KB) is written compact, not in the depth² bytes indentation
// costs; a shallow record is written exactly as json.MarshalIndent does,
// strings holding brackets included.
func TestDeeplyNestedInputStaysLinear(t *testing.T) {
	deep := json.RawMessage(strings.Repeat("[", 9000) + strings.Repeat("]", 9000))
	b, err := MarshalReadable(Record{ID: "r", Inputs: deep})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 4*len(deep) {
		t.Errorf("a record holding %d bytes of nested input takes %d bytes", len(deep), len(b))
	}
	shallow := Record{ID: "r", Inputs: json.RawMessage(`{"q":"[[[[{{{{ \"]]]]","n":[1,[2,[3]]]}`)}
	got, err := MarshalReadable(shallow)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(shallow, "", "  ")
	if !bytes.Equal(got, want) {
		t.Errorf("shallow record:\n%s\nwant:\n%s", got, want)
	}
	if d := depth([]byte(`{"a":"[[[[","b":[[1]]}`)); d != 3 {
		t.Errorf("depth = %d, want 3 (brackets in strings do not count)", d)
	}
}
