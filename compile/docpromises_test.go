package compile

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/docs"
)

// TestDocsPromiseOnlyWhatLintDoes plays a reader who trusts
// docs/diagnostics.md: for every code this package reports, the entry's
// bad example is linted (the code's case above, which follows the page's
// example) and must give the code; when the entry promises a did-you-mean,
// the finding must carry one.
func TestDocsPromiseOnlyWhatLintDoes(t *testing.T) {
	promise := regexp.MustCompile(`(?i)did-you-mean|did you mean`)
	codes := docs.Codes()
	checked := 0
	for _, c := range codeCases {
		if ex, ok := docExamples[c.code]; ok {
			c = ex
		}
		entry, ok := codes[c.code]
		if !ok {
			t.Errorf("%s has no entry in docs/diagnostics.md", c.code)
			continue
		}
		wantsHint := promise.MatchString(entry.Meaning + " " + entry.Bad + " " + entry.Fix + " " + entry.Detail)
		l := LintFile(writeCase(t, c), Options{Tier: c.tier})
		found, hinted := false, false
		for _, d := range l {
			if d.Code == c.code {
				found = true
				hinted = hinted || strings.Contains(d.Message+" "+d.Fix, "did you mean")
			}
		}
		if !found {
			t.Errorf("%s: its example does not produce it", c.code)
		}
		if wantsHint {
			checked++
			if !hinted {
				t.Errorf("%s: docs/diagnostics.md promises a did-you-mean, and lint gives none for its example:\n%s", c.code, dump(l))
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d did-you-mean promises checked: the docs parse is broken", checked)
	}
}

// docExamples are the page's own bad examples, as whole flows, for codes
// whose case above tests another way to get the same code.
var docExamples = map[string]codeCase{
	// `- answer -> ot` with a node `out`.
	"E-GRAPH-UNKNOWN-NODE": {code: "E-GRAPH-UNKNOWN-NODE", flow: hdr + "  - {id: answer, type: llm, prompt: hi}\n  - {id: out, type: output}\nedges:\n  - answer -> ot\n"},
	// "{{ nodes.pul.rows }}" where the node is pull.
	"E-TMPL-NODE": {code: "E-TMPL-NODE", flow: hdr + "  - {id: pull, type: llm, prompt: hi}\n  - {id: a, type: llm, prompt: '{{ nodes.pul.rows }}'}\n  - {id: o, type: output}\nedges: [pull -> a -> o]\n"},
}
