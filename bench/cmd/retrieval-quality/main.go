// Command retrieval-quality measures the retrieve node's ranking on the
// labelled corpus under bench/testdata/retrieval: recall@5 and mean
// reciprocal rank for pure keyword, pure vector and hybrid search at a few
// alphas, overall and by kind of query. bench/run.sh runs it; with -doc it
// rewrites the retrieval section of docs/performance.md.
//
// Where it fits: docs/architecture.md#supporting-packages.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/agentlab/agentlab/bench"
	"github.com/agentlab/agentlab/run/retrieve"
)

func main() {
	dir := flag.String("dir", bench.RetrievalDir, "the labelled corpus (corpus/ and queries.yml)")
	doc := flag.String("doc", "", "rewrite the retrieval section of this Markdown file")
	flag.Parse()
	table, err := report(*dir)
	if err == nil && *doc != "" {
		err = rewrite(*doc, table)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "retrieval-quality:", err)
		os.Exit(1)
	}
	fmt.Print(table)
}

// report builds the Markdown table of every ranking's scores.
func report(dir string) (string, error) {
	set, err := bench.LoadRetrievalSet(dir)
	if err != nil {
		return "", err
	}
	ix := retrieve.Build(set.Docs, retrieve.Options{})
	var b strings.Builder
	fmt.Fprintf(&b, "%d passages, %d queries (%s). Recall@%d and MRR (first relevant hit within %d) overall, then MRR by kind of query.\n\n",
		ix.Len(), len(set.Queries), kinds(set.Queries), bench.RecallDepth, bench.RankDepth)
	order := []string{"code", "mixed", "inflection", "paraphrase", "zh", "multilingual"}
	b.WriteString("| ranking | alpha | recall@5 | MRR |")
	for _, k := range order {
		b.WriteString(" MRR " + k + " |")
	}
	b.WriteString("\n|---|---|---|---|" + strings.Repeat("---|", len(order)) + "\n")
	for _, m := range bench.RetrievalModes {
		s := bench.ScoreRetrieval(bench.IndexSearcher(ix, m.Alpha), set.Queries)
		fmt.Fprintf(&b, "| %s | %g | %.3f | %.3f |", m.Name, m.Alpha, s["all"].RecallAt5, s["all"].MRR)
		for _, k := range order {
			fmt.Fprintf(&b, " %.3f |", s[k].MRR)
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

func kinds(qs []bench.RetrievalQuery) string {
	n := map[string]int{}
	var order []string
	for _, q := range qs {
		if n[q.Kind] == 0 {
			order = append(order, q.Kind)
		}
		n[q.Kind]++
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}

func rewrite(path, table string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := bench.ReplaceMarked(string(b), bench.RetrievalBegin, bench.RetrievalEnd, table)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}
