package issuance

// Metric is one value of the controlled metric set a narrative is checked
// against.
//
// Value is in base units: a metric with Format "percent" holds a ratio
// (0.087 is shown as 8.7%). For convenience a metric without a Format whose
// Unit is "%" holds percent points (8.7 means 8.7%), and a Unit that starts
// with a scale word (万元, 亿, k, million, …) multiplies Value by that scale,
// so {Value: 35, Unit: "万元"} is 350000. Decimals, when set, is the display
// precision of the metric (of the percent figure for Format "percent") and
// widens the matching tolerance to half a unit of its last digit, because a
// metric rounded for display is only known to that precision.
type Metric struct {
	Name     string  `json:"name"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit,omitempty"`
	Decimals *int    `json:"decimals,omitempty"`
	Format   string  `json:"format,omitempty"`
}

// Ignore reasons reported in Number.Ignored.
const (
	IgnoredDate    = "date"    // 2026-11-29, 2026年11月, Nov 29, 2026, 2026-W47, 14:30
	IgnoredOrdinal = "ordinal" // 1st, 第三, 第3
	IgnoredQuarter = "quarter" // Q3, H1, 三季度, 第二季度
	IgnoredVague   = "vague"   // 几十家, 一个问题, 三个方面, a few, one of
	IgnoredMarker  = "marker"  // [[m:gmv]] and everything else inside [[ ]]

	// The structure of a Markdown text, not quantities.
	IgnoredEnumerator = "enumerator" // "1. " and "2) " opening a line, 一、, (1), a row number under #, No., 序号
	IgnoredReference  = "reference"  // [1], [12], [1, 3], [^3], <sup>2</sup>
	IgnoredVersion    = "version"    // v1.2.3, 1.2.3-rc1, 192.168.0.1, version 2.0, 2.0版
	IgnoredSection    = "section"    // ## 2.1 Revenue, Section 3, Table 2, §4.1, 见表2
)

// Number is one number found in a narrative. The first seven fields are the
// JSON shape fixed by docs/cli.md; the ones after them are explanations.
//
// Start and End are byte offsets into the UTF-8 text, End exclusive.
// Value is the number in base units (a percent is a ratio: "8.7%" is
// 0.087); it is nil when the number is an interval or is ignored. Interval
// is set for approximate forms such as 两千余 ([2000, 3000]). Matched names
// the one metric the number was traced to; a number that fits several
// metrics lists them in Ambiguous and is not traced. Ignored says why a
// number is not a quantity (a date, an ordinal, …); ignored numbers are
// never matched and never count against the verdict.
type Number struct {
	Text     string      `json:"text"`
	Start    int         `json:"start"`
	End      int         `json:"end"`
	Value    *float64    `json:"value"`
	Interval *[2]float64 `json:"interval"`
	Matched  *string     `json:"matched"`
	Ignored  *string     `json:"ignored"`

	// Ambiguous lists, sorted, every metric a number fits when it fits
	// more than one.
	Ambiguous []string `json:"ambiguous,omitempty"`
	// Tolerance is half a unit of the last written digit, in the units of
	// Value: "3.5万" is ±500, "35万" ±5000, "8.7%" ±0.0005.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Signed is true when the number was written with an explicit sign
	// ("-3.2%", "+8%"); an unsigned number matches a metric of either
	// sign, because narratives write "down 3.2%" for −0.032.
	Signed bool `json:"signed,omitempty"`
	// Per is 100 for a number written per hundred (8.7%, 1.5
	// percentage points, 三成, 一半, a third), 1000 for ‰ and 10000 for
	// basis points. Value is the ratio; a metric without a unit may also
	// hold the figure in points (Value × Per), and matches either way.
	Per uint16 `json:"per,omitempty"`
}

// Options tune the verdict.
type Options struct {
	// Strict withholds the issuance when any number is untraced
	// (numbers: strict on the report node).
	Strict bool
	// Required metrics must each be mentioned by a matched number (or by a
	// [[m:name]] marker the system fills in).
	Required []string
	// OnMissing is what a missing required metric does: "withhold" (the
	// default, also for "") or "degrade".
	OnMissing string
	// Parts names the pieces a text was joined from (a report, then the
	// output fields), in order, so that a reason says where an untraced
	// number stands ("in field headline at byte 4") rather than giving an
	// offset into the joined text. Without Parts the offset is the text's.
	Parts []Part
	// Markers, when not nil, are the spans of the text whose citation
	// markers the system fills from sealed evidence (the source of a
	// report). A "[[…]]" anywhere else was written by a model, an input or
	// a template and is filled by nothing: it is read as the text it is,
	// so the numbers in it are checked and it mentions no metric. With
	// Markers nil every "[[…]]" is a marker (a report checked on its own).
	Markers []Part
}

// Part is one piece of a joined text: Name ("report brief", "field
// headline") starts at byte Start of the text.
type Part struct {
	Name  string `json:"name"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Tiers, best first.
const (
	TierFormal   = "formal"
	TierDegraded = "degraded"
	TierWithheld = "withheld"
)

// Result is the verdict and the evidence for it.
type Result struct {
	Tier    string   `json:"tier"`
	Numbers []Number `json:"numbers"`
	// Missing lists the required metrics no number mentions.
	Missing []string `json:"missing,omitempty"`
	// Untraced counts the numbers that are neither ignored nor matched to
	// exactly one metric (ambiguous numbers included).
	Untraced int `json:"untraced"`
	// Reasons explains, one sentence each, why the tier is not formal.
	Reasons []string `json:"reasons,omitempty"`
}
