package retrieve

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStripHTML(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello world", "hello world"},
		{"inline tags", "<b>bold</b> and <i>italic</i>", "bold and italic"},
		{"paragraphs", "<p>one</p><p>two</p>", "one\n\ntwo"},
		{"line breaks", "a<br>b<br/>c", "a\nb\nc"},
		{"list", "<ul><li>x</li><li>y</li></ul>", "x\ny"},
		{"heading", "<h1>Title</h1>text", "Title\n\ntext"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc"},
		{"whitespace collapsed", "  a \n\t b  ", "a b"},
		{"script removed", "a<script>var s = '<p>no</p>'; if (x < y) {}</script>b", "ab"},
		{"script end tag case", "a<SCRIPT type=x>no</ScRiPt >b", "ab"},
		{"script not closed", "a<script>no more", "a"},
		{"style removed", "<style>p { color: red }</style><p>kept</p>", "kept"},
		{"template and noscript", "<template><p>t</p></template><noscript>n</noscript>x", "x"},
		{"comment", "a<!-- <p>hidden</p> -->b", "ab"},
		{"unclosed comment", "a<!-- hidden", "a"},
		{"doctype and pi", "<!DOCTYPE html><?xml version=\"1.0\"?>x", "x"},
		{"named entities", "Fish &amp; Chips &lt;b&gt; &quot;q&quot; &copy;", "Fish & Chips <b> \"q\" ©"},
		{"numeric entities", "&#233;t&#xE9; &#37;", "été %"},
		{"nbsp is a space", "a&nbsp;b", "a b"},
		{"unknown entity kept", "a &bogus; b", "a &bogus; b"},
		{"quoted attribute with >", `<a title="a > b" href='x>y'>link</a>`, "link"},
		{"apostrophe in unquoted value", "<p class=it's>text</p>", "text"},
		{"literal less-than", "1 < 2 and 3 <4", "1 < 2 and 3 <4"},
		{"trailing less-than", "a <", "a <"},
		{"pre keeps lines", "<pre>a  b\n  c</pre>d", "a  b\n  c\n\nd"},
		{"title", "<head><title>A &amp; B</title></head><body>x</body>", "A & B\n\nx"},
		{"textarea raw", "<textarea><b>raw</b></textarea>", "<b>raw</b>"},
		{"cdata", "<![CDATA[x < y]]>z", "x < yz"},
		{"unterminated tag", "a <p class=", "a"},
		{"chinese", "<p>退款&amp;配送</p>", "退款&配送"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripHTML(tt.in); got != tt.want {
				t.Errorf("StripHTML(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzStripHTML checks that any input is handled: no panic, valid UTF-8
// stays valid, the result is stable, and nothing of a script survives.
func FuzzStripHTML(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<script>x</script>", "<!--", "<a href='>'>", "&amp;&#x;&#99999999;", "<pre>\n</pre>", "<title>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := StripHTML(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input: %q → %q", s, out)
		}
		if out != StripHTML(s) {
			t.Fatal("not deterministic")
		}
		if out != strings.TrimRight(out, " \n\t") {
			t.Fatalf("trailing space in %q", out)
		}
		wrapped := StripHTML("<script>" + strings.ReplaceAll(strings.ToLower(s), "</script", "") + "</script>ok")
		if wrapped != "ok" {
			t.Fatalf("script content leaked: %q", wrapped)
		}
	})
}

func TestStripHTMLFoldingIsASCII(t *testing.T) {
	if got := StripHTML("<script>x</\u017fcript>y</script>z"); got != "z" {
		t.Errorf("got %q, want %q", got, "z")
	}
}
