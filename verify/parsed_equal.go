package verify

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/unicode"
)

// The content bundle.html proves is the document an HTML reader builds
// from it, not its bytes: a browser's input stream turns CR LF and a lone
// CR into LF, drops a leading byte-order mark and NULs in body text,
// forgets the spacing inside a tag and how a character was escaped, and
// the page's own verifier, which can only read the parsed document, can
// see none of that. So when a file's bytes differ from the bundle its
// evidence renders to, `agentlab verify` parses both as the browser does
// (the WHATWG algorithm of golang.org/x/net/html) and accepts the file
// when the two documents are the same, saying that its bytes are not the
// export's (Result.ByteExact). docs/verify.md, "Bytes and documents".

// Bounds of the parse, which costs a few times the bytes it reads: a
// file more than twice the export's size plus parsedSlack is not parsed
// (no line-ending or spacing edit grows a file that much), nor a file or
// an export over maxParsedBytes; such a file is still accepted when only
// its line endings or a byte-order mark differ (newlinesOnly).
const (
	parsedSlack    = 1 << 20
	maxParsedBytes = 256 << 20
)

// sameDocument reports whether a browser reading file builds the very
// document it builds from want (the export), and renders it in the same
// mode. want is the writer's own output: UTF-8, without a byte-order
// mark. Its <meta charset="utf-8"> is then the first element of the
// file's head too, so a browser reads the file as UTF-8 even when the
// declaration lies past the 1,024 bytes it prescans: its parser, on
// reaching the declaration, reads the file again in that encoding (the
// HTML standard's "change the encoding").
func sameDocument(file, want []byte) bool {
	if newlinesOnly(file, want) {
		return true
	}
	if len(file) > 2*len(want)+parsedSlack || len(file) > maxParsedBytes || len(want) > maxParsedBytes {
		return false
	}
	return parsedSame(file, want)
}

// parsedSame is the parse and the comparison of sameDocument, unbounded.
func parsedSame(file, want []byte) bool {
	// decoded as the WHATWG "UTF-8 decode": a leading BOM goes, each
	// ill-formed sequence becomes one U+FFFD
	text, err := unicode.UTF8BOM.NewDecoder().Bytes(file)
	if err != nil || !standardsMode(text) {
		return false
	}
	got, err := html.Parse(bytes.NewReader(text))
	if err != nil {
		return false
	}
	exp, err := html.Parse(bytes.NewReader(want))
	if err != nil {
		return false
	}
	return sameNode(got, exp)
}

// newlinesOnly reports whether file is want once a leading byte-order
// mark is dropped and CR LF and lone CRs become LF, as a browser's input
// stream does before anything else reads it. want holds no raw CR (the
// writer escapes it in text as &#13;, in JSON as \r), so this needs no
// parse and one copy.
func newlinesOnly(file, want []byte) bool {
	file = bytes.TrimPrefix(file, []byte("\ufeff"))
	if len(file) < len(want) || len(file) > 2*len(want) {
		return false
	}
	norm := bytes.ReplaceAll(file, []byte("\r\n"), []byte("\n"))
	norm = bytes.ReplaceAll(norm, []byte("\r"), []byte("\n"))
	return bytes.Equal(norm, want)
}

// standardsMode reports whether the document starts with a doctype that
// puts a browser in standards mode as the export's does: <!DOCTYPE html>
// with nothing after the name. A doctype such as <!DOCTYPE html x> gives
// the same document node (name "html", no identifiers) but quirks mode,
// in which the same style sheet lays the page out differently.
func standardsMode(text []byte) bool {
	z := html.NewTokenizer(bytes.NewReader(text))
	for {
		switch z.Next() {
		case html.TextToken:
			if strings.Trim(string(z.Text()), " \t\n\f") != "" {
				return false
			}
		case html.DoctypeToken:
			return strings.EqualFold(strings.Trim(string(z.Text()), " \t\n\f"), "html")
		default:
			return false
		}
	}
}

// sameNode compares two parsed documents node by node as the page's
// verifier compares the live document with the one it renders: type,
// name, namespace, attributes (as a set: the parser keeps the first of
// duplicates, and their order shows nowhere), text and children in
// order. It recurses only as deep as both trees go, so the export's
// depth bounds it.
func sameNode(a, b *html.Node) bool {
	if a.Type != b.Type || a.Data != b.Data || a.Namespace != b.Namespace || !sameAttrs(a.Attr, b.Attr) {
		return false
	}
	ca, cb := a.FirstChild, b.FirstChild
	for ca != nil && cb != nil {
		if !sameNode(ca, cb) {
			return false
		}
		ca, cb = ca.NextSibling, cb.NextSibling
	}
	return ca == nil && cb == nil
}

func sameAttrs(a, b []html.Attribute) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if x.Namespace == y.Namespace && x.Key == y.Key {
				found = x.Val == y.Val
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// parsedSameNote is the page check's note on a file that is the export's
// document but not its bytes.
const parsedSameNote = "the file's bytes differ from the export only where no HTML reader sees a difference (line endings, a byte-order mark, spacing inside tags, how a character is escaped); agentlab report writes the exact bytes again"
