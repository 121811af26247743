package diag

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func sampleChecked() *Checked {
	return &Checked{Files: []CheckedFile{
		{Path: "flows/a.flow.yml", Kind: "flow"},
		{Path: "flows/b,c.flow.yml", Kind: "flow"},
		{Path: "presets/x.patch.yml", Kind: "patch"},
		{Path: "<stdin>", Kind: "flow"},
	}}
}

// TestCheckedInEveryFormat: a CI gate reading any format can tell how many
// files a lint checked, including none at all.
func TestCheckedInEveryFormat(t *testing.T) {
	var text bytes.Buffer
	if err := Write(&text, "text", sample(), TextOptions{ReadFile: readSample, Checked: sampleChecked()}); err != nil {
		t.Fatal(err)
	}
	if want := "4 files checked (3 flows, 1 patch): 1 error(s), 1 warning(s)\n"; !strings.HasSuffix(text.String(), want) {
		t.Errorf("text ends %q, want %q", text.String(), want)
	}
	text.Reset()
	if err := Write(&text, "text", nil, TextOptions{Checked: &Checked{}}); err != nil {
		t.Fatal(err)
	}
	if text.String() != "0 files checked: 0 error(s), 0 warning(s)\n" {
		t.Errorf("nothing checked: %q", text.String())
	}

	var js bytes.Buffer
	if err := Write(&js, "json", sample(), TextOptions{Checked: sampleChecked()}); err != nil {
		t.Fatal(err)
	}
	var got struct{ Checked map[string]int }
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"files": 4, "flows": 3, "cards": 0, "patches": 1, "suites": 0}; !equalCounts(got.Checked, want) {
		t.Errorf("json checked = %v, want %v", got.Checked, want)
	}

	var sarif bytes.Buffer
	if err := Write(&sarif, "sarif", sample(), TextOptions{Checked: sampleChecked()}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Artifacts []struct {
				Location struct{ URI string }
			}
			Properties struct{ Checked map[string]int }
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	if r.Properties.Checked["files"] != 4 || len(r.Artifacts) != 3 || r.Artifacts[1].Location.URI != "flows/b,c.flow.yml" {
		t.Errorf("sarif run: %+v", r)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
