package verify

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
