package retrieve

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// benchCorpus is a generated corpus of about 5 MB: Markdown documents of
// sections and paragraphs, three quarters English-like and one quarter
// Chinese-like text, drawn from fixed vocabularies with a fixed seed (so
// every run indexes the same bytes).
var benchCorpus = sync.OnceValue(func() []Doc {
	const size = 5 << 20
	en := strings.Fields("refund invoice shipping delivery customer order payment policy account billing " +
		"return exchange warranty product price discount tax customs duty package tracking carrier " +
		"business day week month within after before request issue paid method card gift software " +
		"download service support contact email phone address region store online market revenue growth")
	zh := []rune("退款发票配送客户订单支付政策账户结算退货换货保修产品价格折扣税海关关税包裹追踪承运工作日周月内后前申请问题已付方式卡礼品软件下载服务支持联系邮件电话地址区域商店在线市场收入增长")
	rng := rand.New(rand.NewPCG(1, 2))
	var docs []Doc
	total := 0
	for total < size {
		var b strings.Builder
		for s := range 4 + rng.IntN(6) {
			fmt.Fprintf(&b, "## Section %d\n\n", s)
			for range 1 + rng.IntN(4) {
				if rng.IntN(4) == 0 {
					for range 40 + rng.IntN(120) {
						b.WriteRune(zh[rng.IntN(len(zh))])
						if rng.IntN(12) == 0 {
							b.WriteRune('。')
						}
					}
				} else {
					for w := range 20 + rng.IntN(120) {
						if w > 0 {
							b.WriteByte(' ')
						}
						b.WriteString(en[rng.IntN(len(en))])
					}
					b.WriteByte('.')
				}
				b.WriteString("\n\n")
			}
		}
		docs = append(docs, Doc{Path: fmt.Sprintf("doc%05d.md", len(docs)), Text: b.String()})
		total += b.Len()
	}
	return docs
})

func corpusBytes(docs []Doc) int {
	n := 0
	for _, d := range docs {
		n += len(d.Text)
	}
	return n
}

func reportRSS(b *testing.B) {
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
}

// BenchmarkBuild5MB indexes the 5 MB corpus (passages, BM25 postings and
// embeddings).
func BenchmarkBuild5MB(b *testing.B) {
	docs := benchCorpus()
	b.SetBytes(int64(corpusBytes(docs)))
	b.ReportAllocs()
	for b.Loop() {
		if ix := Build(docs, Options{}); ix.Len() == 0 {
			b.Fatal("empty index")
		}
	}
	reportRSS(b)
}

// BenchmarkSearch5MB runs mixed English and Chinese queries on the index
// of the 5 MB corpus.
func BenchmarkSearch5MB(b *testing.B) {
	docs := benchCorpus()
	ix := Build(docs, Options{})
	queries := []string{"refund within business days", "customs duty package", "退款工作日", "invoice 发票 payment", "growth"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if hits := ix.Search(queries[i%len(queries)], 5, 0.5); len(hits) == 0 {
			b.Fatal("no hits")
		}
		i++
	}
	b.ReportMetric(float64(ix.Len()), "passages")
	reportRSS(b)
}

// BenchmarkTokens5MB is the floor Build is compared with: tokenising the
// same bytes without indexing them.
func BenchmarkTokens5MB(b *testing.B) {
	docs := benchCorpus()
	b.SetBytes(int64(corpusBytes(docs)))
	for b.Loop() {
		n := 0
		for _, d := range docs {
			n += len(Tokens(d.Text))
		}
		if n == 0 {
			b.Fatal("no tokens")
		}
	}
}
