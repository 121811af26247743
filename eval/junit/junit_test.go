package junit

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	cases := []Case{
		{Question: "a", Variant: "v1", Pass: true, Seconds: 0.5},
		{Question: "a", Variant: "v2", Repeat: 0, Pass: true, Seconds: 0.25},
		{Question: "a", Variant: "v2", Repeat: 1, Pass: false, Reason: `says 3 < 4 & "x"`, Detail: "expected: 4"},
		{Question: "b", Variant: "v1", Pass: false, Reason: "run failed"},
	}
	var b bytes.Buffer
	if err := Write(&b, "s", cases); err != nil {
		t.Fatal(err)
	}
	var root struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Time    string `xml:"time,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &root); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if root.Tests != 3 || root.Failures != 2 || len(root.Suites) != 2 {
		t.Fatalf("tests %d failures %d suites %d", root.Tests, root.Failures, len(root.Suites))
	}
	v2 := root.Suites[1]
	if v2.Name != "s/v2" || v2.Tests != 1 || v2.Cases[0].Time != "0.250" {
		t.Errorf("repeats must fold into one testcase: %+v", v2)
	}
	f := v2.Cases[0].Failure
	if f == nil || f.Message != `question a (variant v2, repeat 2): says 3 < 4 & "x"` || !strings.Contains(f.Body, "expected: 4") {
		t.Errorf("failure %+v", f)
	}
	if !strings.HasPrefix(b.String(), xml.Header) {
		t.Error("missing XML header")
	}
}
