package diag

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentlab/agentlab/docs"
	"github.com/agentlab/agentlab/internal/doccheck"
)

// TestEveryCodeHasHelpInSARIF: every code the diagnostics page documents
// has an anchor there, and its SARIF rule a sentence for a short
// description, a full description, help in text and markdown with the fix,
// and a helpUri pointing at that anchor, so code scanning links each
// finding to its entry.
func TestEveryCodeHasHelpInSARIF(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "diagnostics.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := doccheck.Documented(page)
	if len(documented) < 100 {
		t.Fatalf("only %d codes documented: the parse is broken", len(documented))
	}
	codes := docs.Codes()
	var all List
	for code, e := range documented {
		c, ok := codes[code]
		if !ok {
			t.Errorf("%s (docs/diagnostics.md:%d) is not read by package docs", code, e.Line)
			continue
		}
		anchor := strings.ToLower(code)
		if c.Anchor != anchor {
			t.Errorf("%s: anchor %q, want <a id=%q></a> at its entry (docs/diagnostics.md:%d)", code, c.Anchor, anchor, e.Line)
		}
		if n := strings.Count(string(page), `<a id="`+anchor+`"></a>`); n != 1 {
			t.Errorf("%s: the anchor appears %d times in docs/diagnostics.md", code, n)
		}
		r := ruleFor(code)
		if r.short == code || !isSentence(r.short) || !isSentence(r.full) {
			t.Errorf("%s: short %q / full %q are not sentences", code, r.short, r.full)
		}
		if !strings.HasSuffix(r.helpURI, "docs/diagnostics.md#"+anchor) {
			t.Errorf("%s: helpUri %s", code, r.helpURI)
		}
		if c.Fix == "" || !strings.Contains(r.helpText, " Fix: ") || !strings.Contains(r.helpMarkdown, "**Fix:**") {
			t.Errorf("%s: the help does not give the fix: %q", code, r.helpText)
		}
		all.Errorf("f.yml", Pos{Line: 1, Col: 1}, code, "do this", "found that")
	}

	// Every rule, in one log, validates against the SARIF 2.1.0 schema.
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, all.Sorted(), "test"); err != nil {
		t.Fatal(err)
	}
	if err := sarifSchema(t).Validate(mustJSON(t, buf.Bytes())); err != nil {
		t.Errorf("SARIF with every rule does not validate: %v", err)
	}
}

// TestSARIFFixIsASentenceOfItsOwn: a message without a full stop and a
// lower-case fix still read as two sentences.
func TestSARIFFixIsASentenceOfItsOwn(t *testing.T) {
	var l List
	l.Errorf("f.yml", Pos{Line: 2, Col: 3}, "E-SCHEMA-UNKNOWN-KEY", "did you mean \"prompt\"?", "unknown key %q", "promt")
	l.Warnf("f.yml", Pos{Line: 1, Col: 1}, "W-GRAPH-NO-OUTPUT", "add an output node", "flow has no output node.")
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, l.Sorted(), "test"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"text": "Unknown key \"promt\". Fix: Did you mean \"prompt\"?"`,
		`"text": "Flow has no output node. Fix: Add an output node."`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("missing %s in\n%s", want, buf.String())
		}
	}
}

var sentenceRe = regexp.MustCompile(`^[A-Z0-9"\x60(].*[.?!]$`)

func isSentence(s string) bool { return sentenceRe.MatchString(s) }

func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func mustJSON(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
