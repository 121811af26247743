// Package junit writes evaluation results as JUnit XML, the format CI
// systems (GitHub Actions reporters, GitLab, Jenkins) read test results
// from: one testsuite per variant, one testcase per question × variant.
// Repeats of a question are folded into its testcase, which fails when
// any repeat failed; the failure message names the question, what was
// expected and what the answer said.
//
// Where it fits: docs/architecture.md#evaluation.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
)

// Case is one repeat of a question under a variant, as the writer needs it.
type Case struct {
	Question string
	Variant  string
	Repeat   int
	Pass     bool
	Reason   string
	Seconds  float64
	Detail   string // extra lines for the failure body (expected/answered, SQL)
}

type testsuites struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Suites   []testsuite `xml:"testsuite"`
}

type testsuite struct {
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Time     string     `xml:"time,attr"`
	Cases    []testcase `xml:"testcase"`
}

type testcase struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *failure `xml:"failure,omitempty"`
}

type failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// Write writes cases (in question, variant, repeat order) as JUnit XML.
// name is the suite's name.
func Write(w io.Writer, name string, cases []Case) error {
	root := testsuites{Name: name}
	idx := map[string]int{}
	type qv struct{ q, v string }
	tc := map[qv]int{}
	var total float64
	for _, c := range cases {
		si, ok := idx[c.Variant]
		if !ok {
			si = len(root.Suites)
			idx[c.Variant] = si
			root.Suites = append(root.Suites, testsuite{Name: name + "/" + c.Variant})
		}
		s := &root.Suites[si]
		k := qv{c.Question, c.Variant}
		ci, ok := tc[k]
		if !ok {
			ci = len(s.Cases)
			tc[k] = ci
			s.Cases = append(s.Cases, testcase{Name: c.Question, Classname: "eval." + name + "." + c.Variant})
		}
		t := &s.Cases[ci]
		t.Time = addTime(t.Time, c.Seconds)
		total += c.Seconds
		if c.Pass {
			continue
		}
		msg := fmt.Sprintf("question %s (variant %s, repeat %d): %s", c.Question, c.Variant, c.Repeat+1, c.Reason)
		body := msg
		if c.Detail != "" {
			body += "\n" + c.Detail
		}
		if t.Failure == nil {
			t.Failure = &failure{Message: msg, Type: "EvalFailure", Body: body}
		} else {
			t.Failure.Body += "\n\n" + body
		}
	}
	for i := range root.Suites {
		s := &root.Suites[i]
		var secs float64
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			var x float64
			fmt.Sscan(c.Time, &x)
			secs += x
		}
		s.Time = fmtSecs(secs)
		root.Tests += s.Tests
		root.Failures += s.Failures
	}
	root.Time = fmtSecs(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func addTime(cur string, secs float64) string {
	var x float64
	if cur != "" {
		fmt.Sscan(cur, &x)
	}
	return fmtSecs(x + secs)
}

func fmtSecs(s float64) string { return fmt.Sprintf("%.3f", s) }
