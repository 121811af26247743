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
	const slack = 1 << 20 // the documented bound: twice the export plus 1 MiB
	pad := strings.Repeat(" ", 2*len(want)+slack)
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
		// the bound itself: twice the export plus 1 MiB is parsed, a byte more is not
		{"spacing inside a tag, padded to the parse bound", strings.Replace(want, `<main id="al-report">`, `<main`+strings.Repeat(" ", len(want)+slack+1)+`id="al-report">`, 1), true},
		{"spacing inside a tag, padded a byte past the parse bound", strings.Replace(want, `<main id="al-report">`, `<main`+strings.Repeat(" ", len(want)+slack+2)+`id="al-report">`, 1), false},
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

// miniExport is a page shaped as the bundle writer shapes its own: a
// doctype, the charset first, text, attributes, a script block.
const miniExport = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Bundle: t</title>\n</head>\n<body>\n<main id=\"al-report\"><p class=\"al-text\" data-a=\"0\">x &amp; y&#39;s 1,234.5 &#13;</p>\n<pre>SELECT 1</pre></main>\n<script type=\"application/json\" id=\"al-bundle\">{\"a\":\"\\u003c/script\\u003e\"}</script>\n</body>\n</html>\n"

// FuzzSameDocument edits a small export as a hostile sender would: the
// comparison never panics, accepts the export itself, and its fast path
// (line ends and a byte-order mark, no parse) accepts only what the
// parser accepts too.
func FuzzSameDocument(f *testing.F) {
	want := []byte(miniExport)
	f.Add(want)
	f.Add([]byte(strings.ReplaceAll(miniExport, "\n", "\r\n")))
	f.Add([]byte("\ufeff" + strings.ReplaceAll(miniExport, "\n", "\r")))
	f.Add([]byte(strings.Replace(miniExport, "<!DOCTYPE html>", "<!DOCTYPE html x>", 1)))
	f.Add([]byte(strings.Replace(miniExport, "x &amp; y", "x\x00 &amp; y", 1)))
	f.Add([]byte(strings.Replace(miniExport, "<pre>", "<pre>\n", 1)))
	f.Fuzz(func(t *testing.T, file []byte) {
		same := sameDocument(file, want)
		if newlinesOnly(file, want) && !parsedSame(file, want) {
			t.Fatalf("the fast path accepts what the parser rejects: %q", file)
		}
		if string(file) == miniExport && !same {
			t.Fatal("the export is not its own document")
		}
	})
}

// TestSameDocumentCharacterReferences: how a character is escaped is not
// part of the document, so a named reference (which needs the parser's
// entity table) reads as the numeric one it replaces, and a reference
// to another character does not.
func TestSameDocumentCharacterReferences(t *testing.T) {
	for _, c := range []struct {
		file string
		same bool
	}{
		{strings.Replace(miniExport, "y&#39;s", "y&apos;s", 1), true},
		{strings.Replace(miniExport, "x &amp; y", "x &#38; y", 1), true},
		{strings.Replace(miniExport, "y&#39;s", "y&quot;s", 1), false},
		{strings.Replace(miniExport, "y&#39;s", "y&apos s", 1), false},
	} {
		if got := parsedSame([]byte(c.file), []byte(miniExport)); got != c.same {
			t.Errorf("%q: parsedSame = %v, want %v", c.file, got, c.same)
		}
	}
}
