package issuance

import (
	"os"
	"strings"
	"testing"
)

// TestDocExamples re-reads every example row of docs/issuance.md, so the
// documentation cannot drift from what the checker does.
func TestDocExamples(t *testing.T) {
	b, err := os.ReadFile("../docs/issuance.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, rest, ok := strings.Cut(doc, "<!-- examples:begin -->")
	if !ok {
		t.Fatal("docs/issuance.md has no examples block")
	}
	block, _, ok := strings.Cut(rest, "<!-- examples:end -->")
	if !ok {
		t.Fatal("docs/issuance.md examples block is not closed")
	}
	rows := 0
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// Split on cell bars, keeping "\|" inside code spans.
		line = strings.ReplaceAll(line, `\|`, "\x00")
		line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|")
		cells := strings.Split(line, "|")
		if len(cells) != 2 {
			t.Errorf("row %q does not have two cells", line)
			continue
		}
		unquote := func(c string) string {
			c = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
			return strings.Trim(c, "`")
		}
		in, want := unquote(cells[0]), unquote(cells[1])
		if got := render(Read(in)); got != want {
			t.Errorf("docs/issuance.md: %q reads as %q, the table says %q", in, got, want)
		}
		rows++
	}
	if rows < 50 {
		t.Errorf("only %d example rows found", rows)
	}
}
