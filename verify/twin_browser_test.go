package verify

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// twinReports are report texts a misbehaving model could write: every
// marker kind resolved and unresolved, markers that do not parse or do
// not close, see markers before every kind of closer, text in several
// scripts and HTML that must stay text. The page renderer in the browser
// (verify/assets/page.js) must render each exactly as evidence/render
// does, or the untouched bundle would not verify there.
var twinReports = []string{
	"[[m:gmv]][[m:gmv|k]][[m:gmv|%]][[m:gmv|亿]][[m:gmv|B]] [[m:nope]] [[m:gmv|xx]] [[m:9bad]]",
	"[[i:week]] [[i:nope]] [[i:]] [[v:Q1.r0.amount]][[v:Q1.r9.amount]][[v:Q1.r0.nope]][[v:Q9.r0.amount]][[v:Q1.x.amount]][[v:Q1.r0.customer]]",
	"[[table:Q1]]\n[[table:Q1 cols=amount rows=1-1]][[table:Q1 rows=2]][[table:Q1 rows=5-9]][[table:Q1 cols=nope]][[table:Q1 bad=1]][[table:Q9]][[table:K1]]",
	"[[t:sales]] [[t:refunds]] [[c:sales.amount]] [[c:sales.nope]] [[c:bad]] [[q:K1|the north region leads]] [[q:K1|not in the text]] [[q:K9|x]] [[q:K1|]]",
	"unclosed [[m:gmv and [[m:gmv]] then [[ [[ nested [[m:gmv]]]] end [[",
	"see [[see:m:gmv]]. see [[see:Q1]] , see\t[[see:Q1]][[see:m:gmv]]! see [[see:Q1]]x see [[see:]] see [[see:Q1]]",
	"中文 [[see:Q1]]。句子 [[m:gmv|万]]，完成 [[see:m:gmv]]！ emoji 🧪 [[m:north_share]] ‮rtl‬ & <b>bold</b> \"quoted\" 'single'",
	"[[unknown:x]] [[m gmv]] [[:x]] [[ m : gmv | 万 ]] [[ v : Q1.r1.region ]] [[table: Q1 cols=region, amount rows=0-0 ]]",
	"",
	"no markers at all, only text\n\n  with blank lines and trailing spaces   ",
	"[[see:Q1]] leading see, trailing see [[see:m:gmv]]",
	"[[m:gmv]]\r\n[[i:week]]\ttab [[see:Q1]]\r\n",
	"[[m:gmv\u0085]] [[m:gmv\ufeff]] [[m:gmv\u202e]] [[i:\u00a0week\u3000]] [[m:na\u200bme]] [[q:K1|\u0085]] [[table:Q1\u0085rows=0-0]] [[t:x\x01]] [[m:😀]]",
	"gap [[\u0085see\u00a0:Q1]]. gap [[ see :Q1]]",
	"[[v:Q1.r99999999999999999999.amount]] [[v:Q+1.r0.amount]] [[v:Q1.r+1.amount]] [[table:Q1 rows=+0-+1]] [[table:Q1 rows=9223372036854775807]] [[v:Q01.r0.amount]]",
}

// twinFragments are the pieces randomReports glues together.
var twinFragments = []string{"[[", "]]", "[[m:gmv]]", "m:gmv", "m:", "|万", "|%", "|k", " ", " ", "\t", "\n", "\r\n", "[[see:Q1]]", "see:m:gmv",
	".", "。", "！", ",", ")", ":", "i:week", "[[i:week]]", "v:Q1.r0.amount", "[[v:Q1.r2.region]]", "table:Q1", " rows=0-1", " cols=amount,region",
	"[[table:Q1 rows=1-2]]", "q:K1|", "the north region leads", "[[q:K1|north]]", "t:sales", "[[c:sales.amount]]", "x", "中文", "🧪", "<b>", "&amp;", "'", "\""}

// randomReports are n report texts made of random fragments (a fixed
// seed: the same texts on every run).
func randomReports(n int) []string {
	r := rand.New(rand.NewPCG(18, 2026))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := 3 + r.IntN(20); k > 0; k-- {
			b.WriteString(twinFragments[r.IntN(len(twinFragments))])
		}
		out[i] = b.String()
	}
	return out
}

// TestRendererTwinOnHostileReports builds a sealed run per report text,
// hand-written and random, writes its bundle and requires both verifiers
// to accept it.
func TestRendererTwinOnHostileReports(t *testing.T) {
	browser(t)
	for i, src := range append(append([]string{}, twinReports...), randomReports(16)...) {
		r := fixtureRun(t, evfixture.Options{Report: src})
		var buf bytes.Buffer
		if err := WriteBundle(&buf, r.Dir, BundleOptions{}); err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
		if res := verifyVariant(t, buf.Bytes(), Options{}); !res.OK {
			t.Fatalf("report %d: the CLI rejects the untouched bundle: %v", i, failing(res.Checks))
		}
		br := openBundle(t, writeTemp(t, fmt.Sprintf("twin%02d.html", i), buf.Bytes()))
		if !br.OK {
			t.Errorf("report %d %q: the browser renders it differently: %v", i, src, failing(br.Checks))
		}
	}
}

// twinNameReports write table and column names every way evidence.Names
// judges them: unknown tables with and without names to suggest, a column
// of an unknown table, table.column and bare names in backticks (a text
// value of the snapshot, a metric, an input), mixed case, other scripts,
// and backticks that are no name or cross a marker.
var twinNameReports = []string{
	"[[t:refunds]] [[t:SALES]] [[t:sales-x]] [[c:refunds.amount]] [[c:SALES.Amount]] [[c:sales.amout]] [[c:sales.week]] [[c:sales.region.x]]\n" +
		"`sales.amout` `Sales.AMOUNT` `refunds.amount` `north` `NORTH` `nort` `regoin` `gmv` `Week` `north_share` `a.b.c` `sum(amount)` `` `x` ` unclosed `",
	"中文`regoin`中文 `regoin`🧪`amout` `été` `Ventes` `ventes_ete` `VENTES_ÉTÉ` [[t:ventes]] [[c:Ventes.Region]] [[t:été]] \u202e`rtl`\u202c `Σ` `_` `stores`",
	"`[[m:gmv]]` `north`[[t:sales]]`south` [[i:week]]`week` `amount``region` ``` `unknown_one`. `unknown_two`[[see:Q1]]. `r`",
}

// twinNameSnapshots change the fixture's query snapshot so that the same
// reports meet other names: none at all (a merge result reads no table),
// and names in mixed case and other scripts, read through a JOIN, a table
// list, quoted identifiers and string literals.
var twinNameSnapshots = []struct {
	name string
	edit func(*evidence.Snapshot)
}{
	{"fixture", nil},
	{"merge", func(s *evidence.Snapshot) { s.Tool = "merge" }},
	{"scripts", func(s *evidence.Snapshot) {
		s.Source = "Ventes_Été"
		s.SQL = `SELECT r.Region, SUM(amount) AS Total, "Écart" FROM "Ventes_Été" r JOIN [Régions] g ON r.region = g.name, ` +
			"`Stores` WHERE week = :week AND note = 'it''s north' AND customer LIKE 'x%' GROUP BY 1"
		s.Rows[1][0], s.Rows[2][0] = "Süd", "East_Region"
	}},
}

// TestRendererTwinOnNames is TestRendererTwinOnHostileReports for names:
// every report against every snapshot, both verifiers must accept the
// untouched bundle.
func TestRendererTwinOnNames(t *testing.T) {
	browser(t)
	for _, sn := range twinNameSnapshots {
		for i, src := range twinNameReports {
			r := fixtureRun(t, evfixture.Options{Report: src, Snapshot: sn.edit})
			var buf bytes.Buffer
			if err := WriteBundle(&buf, r.Dir, BundleOptions{}); err != nil {
				t.Fatalf("%s report %d: %v", sn.name, i, err)
			}
			if res := verifyVariant(t, buf.Bytes(), Options{}); !res.OK {
				t.Fatalf("%s report %d: the CLI rejects the untouched bundle: %v", sn.name, i, failing(res.Checks))
			}
			// the names were judged at all
			for _, want := range map[string][]string{
				"fixture": {`title="no snapshot of the run queries table &#34;refunds&#34;; nearest: &#34;sales&#34;"`,
					`title="unknown_name: no snapshot of the run has a table or column &#34;regoin&#34;, and it is no metric or input; nearest: &#34;region&#34;`},
				"merge": {`title="no snapshot of the run queries table &#34;refunds&#34;"`},
			}[sn.name] {
				if i == 0 && !bytes.Contains(buf.Bytes(), []byte(want)) {
					t.Errorf("%s report %d: the bundle lacks %s", sn.name, i, want)
				}
			}
			br := openBundle(t, writeTemp(t, fmt.Sprintf("names-%s%02d.html", sn.name, i), buf.Bytes()))
			if !br.OK {
				t.Errorf("%s report %d %q: the browser renders it differently: %v", sn.name, i, src, failing(br.Checks))
			}
		}
	}
}
