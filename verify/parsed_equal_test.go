package verify

import (
	"strings"
	"testing"
)

// TestSameDocumentAgainstAnEditor holds the parsed-document rule to its
// bounds, with edits a text editor (or someone padding a file to exhaust
// the verifier) makes to the export.
func TestSameDocumentAgainstAnEditor(t *testing.T) {
	base, _ := fixtureBundle(t)
	want := string(base)
	pad := strings.Repeat(" ", 2*len(want)+parsedSlack)
	cases := []struct {
		name string
		file string
		same bool
	}{
		{"the export itself", want, true},
		{"Windows line ends and a byte-order mark (no parse needed)", "\ufeff" + strings.ReplaceAll(want, "\n", "\r\n"), true},
		{"old Mac line ends", strings.ReplaceAll(want, "\n", "\r"), true},
		{"spacing inside a tag", strings.Replace(want, `<main id="al-report">`, `<main   id="al-report"  >`, 1), true},
		{"spacing inside a tag, padded past the parse bound", strings.Replace(want, `<main id="al-report">`, `<main`+pad+`id="al-report">`, 1), false},
		{"a quirks-mode doctype", strings.Replace(want, "<!DOCTYPE html>", "<!DOCTYPE html x>", 1), false},
		{"a doctype with a public identifier", strings.Replace(want, "<!DOCTYPE html>", `<!DOCTYPE html PUBLIC "">`, 1), false},
		{"a second byte-order mark", "\ufeff\ufeff" + want, false},
		{"a character the decoder replaces", strings.Replace(want, "Narrative</h2>", "Narr\xe2\x82ative</h2>", 1), false},
		{"an empty file", "", false},
	}
	for _, c := range cases {
		if got := sameDocument([]byte(c.file), base); got != c.same {
			t.Errorf("%s: sameDocument = %v, want %v", c.name, got, c.same)
		}
	}
}
