package issuance

import (
	"math/rand"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// narrativeParts are the sentences the 1 MB benchmark narrative is built
// from: English and Chinese, numbers of every form, dates, markers, the
// structure of a Markdown report (section numbers, numbered lists, a table,
// references, versions, festival names) and plain prose, in roughly the
// proportions of a weekly brief.
var narrativeParts = []string{
	"GMV for the week was 1,234,567 yuan, up 8.7% WoW and 12.3 percent year on year. ",
	"The north region contributed [[m:gmv_north|万]] while the south fell -3.2% on 2026-11-29. ",
	"Revenue reached $1.2M in Q3 2026, 2x the level of a year ago, across 2,500 stores. ",
	"Conversion improved by 0.4 pp to 3.15%, and the average basket rose to 86.50 yuan. ",
	"Inventory turnover held steady, and the team expects a few more openings in the coming weeks. ",
	"One of the main drivers was the promotion that ran from Nov 20 to Nov 29, 2026. ",
	"本周销售额3.5万元，环比增长百分之八点七，同比增长三成。",
	"新增门店两千余家，覆盖全国二十多个城市，其中第三季度新开一百零五家。",
	"2026年11月29日的数据显示，客单价为86.5元，复购率提升2.3个百分点。",
	"报告提出三个方面的建议，并指出一个问题：几十家门店的库存周转偏慢。",
	"华东地区贡献了三分之一的销售额，约为[[m:gmv_east]]，华南地区占一半。",
	"The quick brown fox jumps over the lazy dog while the analysts write their notes. ",
	"数据来源于[[v:Q1.r0.gmv]]与[[table:Q1 cols=region,amount rows=0-4]]，详见附录。",
	"Margins widened to 23.4%, roughly 1.5 times the sector average of 15.6%. ",
	"整体来看，本周经营稳健，各项指标均在预期范围之内，团队将继续关注库存与履约效率。",
	"\n\n## 2.1 Regional GMV\n\n1. North: 1,234,567 yuan [1], up 8.7%.\n2. South: 2 345 678 yuan, down 3.2% [2].\n\n",
	"\n\n| # | Region | GMV | WoW |\n|---|---|---:|---:|\n| 1 | North | 86.50万 | +8.7% |\n| 2 | South | $1.2m | -3.2% |\n\n",
	"Release v2.4.1 of the pipeline (see Section 4.2) shipped on 2026-11-29; nearly half of the stores use it.[^3] ",
	"十一假期期间，近一半门店参与了618大促，约三成订单来自二线城市，复购率提升2.3个百分点。",
}

var (
	narrativeOnce sync.Once
	narrative1MB  string
)

// benchNarrative builds a deterministic 1 MB narrative.
func benchNarrative() string {
	narrativeOnce.Do(func() {
		r := rand.New(rand.NewSource(47))
		var b strings.Builder
		for b.Len() < 1<<20 {
			b.WriteString(narrativeParts[r.Intn(len(narrativeParts))])
			if r.Intn(8) == 0 {
				b.WriteString("\n\n")
			}
		}
		narrative1MB = b.String()
	})
	return narrative1MB
}

var benchMetrics = []Metric{
	{Name: "gmv", Value: 1234567},
	{Name: "wow", Value: 0.087, Format: "percent"},
	{Name: "yoy", Value: 0.123, Format: "percent"},
	{Name: "stores", Value: 2500},
	{Name: "basket", Value: 86.5},
	{Name: "margin", Value: 0.234, Format: "percent"},
	{Name: "conv", Value: 0.0315, Format: "percent"},
}

// BenchmarkCheck1MB reads and checks a 1 MB mixed narrative.
func BenchmarkCheck1MB(b *testing.B) {
	text := benchNarrative()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		res := Check(text, benchMetrics, Options{Required: []string{"gmv"}})
		if len(res.Numbers) == 0 {
			b.Fatal("no numbers")
		}
	}
	reportCPU(b, len(text), c0)
}

// reportCPU adds throughput per CPU second (cpu-MB/s), which stays
// meaningful when other processes compete for the cores, and the peak RSS
// of the benchmark process.
func reportCPU(b *testing.B, size int, c0 time.Duration) {
	if d := cpuTime() - c0; c0 > 0 && d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
}

// BenchmarkRegexpDigits1MB is the floor the checker is compared with: a
// plain regexp scan for digit runs over the same text, which finds far
// less than the checker reads.
func BenchmarkRegexpDigits1MB(b *testing.B) {
	text := benchNarrative()
	re := regexp.MustCompile(`[0-9]+`)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		if len(re.FindAllStringIndex(text, -1)) == 0 {
			b.Fatal("no digits")
		}
	}
	reportCPU(b, len(text), c0)
}
