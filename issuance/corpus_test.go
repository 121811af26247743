package issuance

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/txtar"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the number lists of testdata/corpus/*.txtar from what the checker reads (the tier line is never rewritten)")

// TestCorpus checks the reader on realistic Markdown reports, in English
// and Chinese, written the way a model writes them: numbered lists,
// tables, footnotes, headings with section numbers, hedges, versions,
// dates. Each archive in testdata/corpus holds the report (report.md),
// its metric set (metrics.json) and the expected reading (want): the
// tier, the options (required: a,b; strict), then every number in order
// with what became of it. A report that degrades or withholds does so
// for a reason the want file names; structure is never the reason.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var zh, en int
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		parts := map[string]string{}
		for _, f := range a.Files {
			parts[f.Name] = string(f.Data)
		}
		report, want := parts["report.md"], parts["want"]
		if report == "" || want == "" {
			t.Errorf("%s: needs report.md and want", file)
			continue
		}
		if hasHan(report) {
			zh++
		} else {
			en++
		}
		metrics, err := ParseMetrics(file+":metrics.json", []byte(parts["metrics.json"]))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		head, _, _ := strings.Cut(want, "\n\n")
		var opt Options
		tier := ""
		for _, line := range strings.Split(head, "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "tier":
				tier = v
			case "required":
				opt.Required = strings.Split(v, ",")
			case "strict":
				opt.Strict = v == "true"
			case "on_missing":
				opt.OnMissing = v
			default:
				t.Errorf("%s: unknown want header %q", file, line)
			}
		}
		res := Check(report, metrics, opt)
		got := describeNumbers(res)
		if *updateCorpus {
			for i := range a.Files {
				if a.Files[i].Name == "want" {
					a.Files[i].Data = []byte(head + "\n\n" + got)
				}
			}
			if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if _, body, _ := strings.Cut(want, "\n\n"); body != got {
			t.Errorf("%s: the reading differs\n got:\n%s\nwant:\n%s", file, got, body)
		}
		if res.Tier != tier {
			t.Errorf("%s: tier %s, want %s (reasons %q)", file, res.Tier, tier, res.Reasons)
		}
	}
	if zh < 30 || en < 30 {
		t.Errorf("the corpus has %d Chinese and %d English reports, want at least 30 of each", zh, en)
	}
}

// describeNumbers is the reading of a report as the want files hold it:
// one line per number, its text and what became of it.
func describeNumbers(res Result) string {
	var b strings.Builder
	for _, n := range res.Numbers {
		text := strings.ReplaceAll(n.Text, "\n", `\n`)
		switch {
		case n.Ignored != nil:
			fmt.Fprintf(&b, "%s\tignored %s\n", text, *n.Ignored)
		case n.Matched != nil:
			fmt.Fprintf(&b, "%s\tmatched %s\n", text, *n.Matched)
		case len(n.Ambiguous) > 0:
			fmt.Fprintf(&b, "%s\tambiguous %s\n", text, strings.Join(n.Ambiguous, ","))
		default:
			fmt.Fprintf(&b, "%s\tuntraced\n", text)
		}
	}
	return b.String()
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}
