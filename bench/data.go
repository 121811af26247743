package bench

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
)

// Blob fills buf with the deterministic bytes of blob number i: a ChaCha8
// stream keyed by i, so that blobs are incompressible, all different, and
// can be produced again (by the floor of a benchmark) without being kept.
func Blob(i int, buf []byte) {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(i)+1)
	copy(seed[8:], "agentlab-bench-blob")
	rand.NewChaCha8(seed).Read(buf)
}

// narrativeParts are the sentences of the issuance benchmark's narrative:
// English and Chinese, numbers in every form the reader handles (thousand
// separators, percents, 万 and M suffixes, Chinese numerals, dates,
// quarters, vague counts, citation markers), the structure of a Markdown
// report (headings with section numbers, numbered lists, a table with an
// index column, references, versions, festival names) and plain prose,
// about one number every 35 bytes, far denser than a real report.
var narrativeParts = []string{
	"Net sales for the week were 2,345,678 yuan, up 6.4% week on week and 11.2 percent on last year. ",
	"The west region brought in [[m:gmv_west|万]] while the east slipped -2.7% on 2026-11-22. ",
	"Revenue reached $3.4M in Q2 2026, 3x the level of two years ago, across 1,850 outlets. ",
	"Checkout conversion rose by 0.6 pp to 2.95%, and the average order grew to 74.20 yuan. ",
	"Stock levels stayed flat, and the buyers expect a few more launches over the next weeks. ",
	"Most of the lift came from the campaign that ran from Nov 14 to Nov 22, 2026. ",
	"本周营业额4.2万元，环比增长百分之六点四，同比增长两成。",
	"新开门店一千余家，覆盖全国三十多个城市，其中第二季度新开八十六家。",
	"2026年11月22日的数据显示，客单价为74.2元，复购率提升1.8个百分点。",
	"报告给出四条建议，并指出一个风险：几十家门店的补货周期偏长。",
	"西南地区贡献了四分之一的营业额，约为[[m:gmv_sw]]，华北地区占三成。",
	"Nothing in this sentence is a number, it is only prose that the reader has to skip quickly. ",
	"数据来源于[[v:Q2.r1.sales]]与[[table:Q2 cols=region,amount rows=0-5]]，详见附录。",
	"Gross margin widened to 21.7%, about 1.4 times the sector average of 15.5%. ",
	"总体而言，本周经营平稳，各项指标均在预期之内，团队将继续关注库存与配送效率。",
	"\n\n## 2.1 Regional revenue\n\n1. West: 2,345,678 yuan [1], up 6.4%.\n2. East: 1 234 567 yuan, down 2.7% [2].\n\n",
	"\n\n| # | Region | Net sales | WoW |\n|---|---|---:|---:|\n| 1 | West | 74.20万 | +6.4% |\n| 2 | East | $3.4m | -2.7% |\n\n",
	"Release v2.4.1 of the pipeline (see Section 4.2) shipped on 2026-11-22; nearly half of the outlets use it.[^3] ",
	"十一假期期间，近一半门店参与了618大促，约三成订单来自二线城市，客单价提升1.8个百分点。",
}

// Narrative is a deterministic text of at least size bytes built from
// narrativeParts, with a paragraph break now and then.
func Narrative(size int) string {
	r := rand.New(rand.NewPCG(47, 11))
	var b strings.Builder
	b.Grow(size + 256)
	for b.Len() < size {
		b.WriteString(narrativeParts[r.IntN(len(narrativeParts))])
		if r.IntN(8) == 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}
