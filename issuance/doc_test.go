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
		// "\n" in a narrative stands for a line break (tables, lists).
		in, want := strings.ReplaceAll(unquote(cells[0]), `\n`, "\n"), unquote(cells[1])
		if got := render(Read(in)); got != want {
			t.Errorf("docs/issuance.md: %q reads as %q, the table says %q", in, got, want)
		}
		rows++
	}
	if rows < 50 {
		t.Errorf("only %d example rows found", rows)
	}
}

// TestDocMatching re-runs every row of the matching table of
// docs/issuance.md: the narrative, checked against the metrics of the row,
// gives the verdict the row says for each number that is not ignored.
func TestDocMatching(t *testing.T) {
	b, err := os.ReadFile("../docs/issuance.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- matching:begin -->")
	if !ok {
		t.Fatal("docs/issuance.md has no matching block")
	}
	block, _, ok := strings.Cut(rest, "<!-- matching:end -->")
	if !ok {
		t.Fatal("docs/issuance.md matching block is not closed")
	}
	rows := 0
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		line = strings.ReplaceAll(line, `\|`, "\x00")
		line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|")
		cells := strings.Split(line, "|")
		if len(cells) != 3 {
			t.Errorf("row %q does not have three cells", line)
			continue
		}
		unquote := func(c string) string {
			return strings.Trim(strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")), "`")
		}
		text := strings.ReplaceAll(unquote(cells[0]), `\n`, "\n")
		metrics, err := ParseMetrics("docs/issuance.md", []byte(unquote(cells[1])))
		if err != nil {
			t.Errorf("row %q: %v", line, err)
			continue
		}
		var got []string
		for _, n := range Check(text, metrics, Options{}).Numbers {
			switch {
			case n.Ignored != nil:
			case n.Matched != nil:
				got = append(got, "matched "+*n.Matched)
			case len(n.Ambiguous) > 0:
				got = append(got, "ambiguous "+strings.Join(n.Ambiguous, ","))
			default:
				got = append(got, "untraced")
			}
		}
		if g, want := strings.Join(got, "; "), unquote(cells[2]); g != want {
			t.Errorf("docs/issuance.md: %q against %s is %q, the table says %q", text, unquote(cells[1]), g, want)
		}
		rows++
	}
	if rows < 20 {
		t.Errorf("only %d matching rows found", rows)
	}
}
