package retrieve

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocs keeps docs/retrieve.md honest: every load code is documented,
// and the quotation examples behave as the table says.
func TestDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/retrieve.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, code := range []string{CodeDir, CodeRead, CodeSymlink, CodeFileSize, CodeTotalSize, CodeFiles, CodeEncoding, CodeEmpty} {
		if !strings.Contains(doc, "| `"+code+"` |") {
			t.Errorf("code %s is not in the table of docs/retrieve.md", code)
		}
	}
	for _, want := range []string{
		fmt.Sprintf("at most **%d\ncharacters**", DefaultMaxPassageChars),
		fmt.Sprintf("vector of %d dimensions", DefaultDims),
		fmt.Sprintf("k1 = %g, b = %g", K1, B),
		fmt.Sprintf("`%g` (the default)", DefaultAlpha),
		"At most 10,000 documents, 4 MiB per file and 64 MiB in total",
		"`0` is pure keyword (BM25), `1` pure vector",
		fmt.Sprintf("%d-grams and %d-grams of every word", ngramSizes[0], ngramSizes[1]),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/retrieve.md does not say %q", want)
		}
	}
	if DefaultMaxFiles != 10000 || DefaultMaxFileBytes != 4<<20 || DefaultMaxTotalBytes != 64<<20 {
		t.Error("the load caps changed: update docs/retrieve.md and this test")
	}
	_, section, _ := strings.Cut(doc, "## Quotations")
	section, _, _ = strings.Cut(section, "## Go API")
	row := regexp.MustCompile("(?m)^\\| `([^`]*)` \\| `([^`]*)`[^|]* \\| (yes|no) \\|$")
	n := 0
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		hit := strings.ReplaceAll(m[1], "⏎", "\n")
		words := strings.ReplaceAll(m[2], "⏎", "\n")
		if got := Quote(hit, words); got != (m[3] == "yes") {
			t.Errorf("docs example Quote(%q, %q) = %v, docs say %s", hit, words, got, m[3])
		}
		n++
	}
	if n < 8 {
		t.Fatalf("found only %d quotation examples in docs/retrieve.md", n)
	}
}
