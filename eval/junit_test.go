package eval

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestJUnitGolden(t *testing.T) {
	res, err := Evaluate(context.Background(), fakeOptions(t, &fakeRunner{}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Cases {
		res.Cases[i].Millis = 1.5
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, res); err != nil {
		t.Fatal(err)
	}
	// Well-formed XML.
	var v struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Tests != 8 || v.Failures != 1 {
		t.Errorf("tests %d failures %d; want 8 (4 questions × 2 variants) and 1", v.Tests, v.Failures)
	}
	if !strings.Contains(b.String(), `question b (variant bad, repeat 1)`) {
		t.Error("the failure must name the question")
	}
	golden := filepath.Join("testdata", "junit.golden.xml")
	if *update {
		os.WriteFile(golden, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("JUnit output differs from %s:\n%s", golden, b.String())
	}
}

func TestTextReport(t *testing.T) {
	o := fakeOptions(t, &fakeRunner{})
	base, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range base.Cases {
		base.Cases[i].Pass = true
	}
	o.Baseline, o.BaselineFile = base, "base.json"
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteText(&b, res)
	out := regexp.MustCompile(`[0-9.]+/[0-9.]+/[0-9.]+\s*$`).ReplaceAllString(b.String(), "")
	for _, want := range []string{
		"FAIL b [bad #1]: the answer does not state 2 (it states 3)",
		"good                   4/4 100.0% [51.0, 100.0]",
		"bad                    6/8 75.0% [40.9, 92.9]",
		"good vs bad: both 3, only A 1, only B 0, neither 0, p = 1",
		"baseline base.json: 1 regression(s)",
		"! b [bad]: pass → fail",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if res.Exit != 1 {
		t.Errorf("exit %d", res.Exit)
	}
}
