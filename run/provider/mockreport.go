package provider

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// BareNumberSeed reports whether seed is one of the demonstration seeds for
// which the mock's report writes one bare number ("grew 12.5%") on the
// first call of a report node, so that the repair loop can be shown and
// tested: every seed whose value modulo 1000 is 13 (13, 1013, 2013, -13,
// …). Later calls of the same node are clean.
func BareNumberSeed(seed int64) bool {
	m := seed % 1000
	if m < 0 {
		m = -m
	}
	return m == 13
}

var (
	// markerName is what may stand in a marker after "m:", "i:" or a
	// column position: the mock cites nothing it could not parse back.
	markerName = lazyre.New(`^[\p{L}_][\p{L}\p{N}_]*$`)
	snapshotID = lazyre.New(`^Q[0-9]+$`)
	hitID      = lazyre.New(`^K[0-9]+$`)
)

// Report sentence templates. None contains a digit or a CJK numeral: in a
// report every number must be a marker the system fills in.
var (
	reportIntroEN = []string{"Summary for [[i:%s]].", "Here is the report for [[i:%s]].", "Brief for [[i:%s]]."}
	reportTopicEN = []string{"This report covers %s.", "The following notes cover %s."}
	reportNoneEN  = []string{"This report summarises the available evidence.", "The notes below summarise what the evidence shows."}
	metricEN      = []string{"The %s came in at [[m:%s]].", "The reported %s is [[m:%s]].", "The %s stands at [[m:%s]].", "For the %s, the figure is [[m:%s]]."}
	cellEN        = []string{"In the query results, %s reads [[v:%s]].", "Looking at the rows, %s is [[v:%s]].", "The data shows %s at [[v:%s]]."}
	tableEN       = []string{"The rows behind these figures:", "The underlying rows:"}
	quoteEN       = []string{"As a source notes, [[q:%s|%s]].", "The background material states: [[q:%s|%s]].", "In the words of the source, [[q:%s|%s]]."}
	closingEN     = []string{"All figures above are drawn from the recorded evidence.", "Each figure is traced to its source.", "These figures come from the sealed data."}
	noFiguresEN   = "No figures were available to cite."
	bareEN        = "Overall activity grew 12.5% on the prior period."

	reportIntroZH = []string{"[[i:%s]]报告摘要。", "以下是[[i:%s]]的报告。"}
	reportTopicZH = []string{"本报告涵盖%s。", "以下内容涉及%s。"}
	reportNoneZH  = []string{"本报告总结现有证据。"}
	metricZH      = []string{"%s为[[m:%s]]。", "%s达到[[m:%s]]。", "报告期内%s为[[m:%s]]。"}
	cellZH        = []string{"查询结果中，%s为[[v:%s]]。", "数据显示%s为[[v:%s]]。"}
	tableZH       = []string{"相关数据如下："}
	quoteZH       = []string{"资料指出：[[q:%s|%s]]。", "据资料记载，[[q:%s|%s]]。"}
	closingZH     = []string{"以上数据均来自已封存的证据。", "所有数据均可追溯至来源。"}
	noFiguresZH   = "目前没有可引用的数据。"
	bareZH        = "整体同比增长12.5%。"
)

// reportText writes a report narrative in which every number is a citation
// marker: the inputs, metrics, query cells, an optional table and verbatim
// quotations from knowledge hits of ev.
func reportText(r *rng, req Request, seed int64) string {
	// The topic comes from the original prompt, not from a later repair
	// instruction.
	question := firstUser(req.Messages)
	zh := mostlyCJK(question)
	tr := func(en, zhs []string) string {
		if zh {
			return pick(r, zhs)
		}
		return pick(r, en)
	}
	ev := req.Evidence
	if ev == nil {
		ev = &Evidence{}
	}
	var parts []string
	var inputs []string
	for _, in := range ev.Inputs {
		if markerName.MatchString(in) {
			inputs = append(inputs, in)
		}
	}
	switch kws := keyWords(question, true); {
	case len(inputs) > 0:
		parts = append(parts, fmt.Sprintf(tr(reportIntroEN, reportIntroZH), pick(r, inputs)))
	case len(kws) > 0:
		parts = append(parts, fmt.Sprintf(tr(reportTopicEN, reportTopicZH), joinWords(kws, zh)))
	default:
		parts = append(parts, tr(reportNoneEN, reportNoneZH))
	}
	if BareNumberSeed(seed) && req.Call == 0 {
		if zh {
			parts = append(parts, bareZH)
		} else {
			parts = append(parts, bareEN)
		}
	}
	cited := 0
	for i, m := range ev.Metrics {
		if i >= 6 || !markerName.MatchString(m.Name) {
			continue
		}
		parts = append(parts, fmt.Sprintf(tr(metricEN, metricZH), humanize(m.Name, "tracked measure", zh), m.Name))
		cited++
	}
	var table string
	for i, s := range ev.Snapshots {
		if i >= 3 || !snapshotID.MatchString(s.ID) || s.Rows <= 0 {
			continue
		}
		var cols []string
		for _, c := range s.Columns {
			if markerName.MatchString(c) {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		col := pick(r, cols)
		row := r.intn(min(s.Rows, 5))
		ref := fmt.Sprintf("%s.r%d.%s", s.ID, row, col)
		parts = append(parts, fmt.Sprintf(tr(cellEN, cellZH), humanize(col, "the selected value", zh), ref))
		cited++
		if table == "" && s.Rows > 1 && r.chance(0.5) {
			if len(cols) > 3 {
				cols = cols[:3]
			}
			table = fmt.Sprintf("%s\n\n[[table:%s cols=%s rows=0-%d]]", tr(tableEN, tableZH), s.ID, strings.Join(cols, ","), min(s.Rows, 5)-1)
		}
	}
	for i, h := range ev.Knowledge {
		if i >= 3 || !hitID.MatchString(h.ID) {
			continue
		}
		if q, ok := quoteSpan(r, h.Text); ok {
			parts = append(parts, fmt.Sprintf(tr(quoteEN, quoteZH), h.ID, q))
			cited++
		}
	}
	if cited == 0 {
		// No general prose here: a sentence of it may read as a claim
		// (a trend word) with nothing to cite.
		if zh {
			parts = append(parts, noFiguresZH)
		} else {
			parts = append(parts, noFiguresEN)
		}
	} else {
		parts = append(parts, tr(closingEN, closingZH))
	}
	sep := " "
	if zh {
		sep = ""
	}
	text := strings.Join(parts, sep)
	if table != "" {
		text += "\n\n" + table
	}
	return text
}

// humanize turns a metric or column name into words for the narrative
// ("gross_margin" → "gross margin"). A name with digits would put a bare
// number into the text, so it is replaced by fallback.
func humanize(name, fallback string, zh bool) string {
	if strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsDigit(r) || strings.ContainsRune(cjkNumerals, r)
	}) {
		if zh {
			return "该指标"
		}
		return fallback
	}
	return strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(name))
}

// quoteSpan picks a run of words (or, for CJK text, of characters) copied
// verbatim from text that is safe inside a marker: no brackets, no "|", no
// line break. It tries several starting points before giving up.
func quoteSpan(r *rng, text string) (string, bool) {
	bad := func(s string) bool {
		return s == "" || strings.ContainsAny(s, "[]|\r\n")
	}
	if mostlyCJK(text) {
		// Prefer a whole clause; cut a run of characters otherwise.
		var clauses []string
		for _, c := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune("，。；：！？、,.;:!?\n", r) }) {
			if c = strings.TrimSpace(c); utf8.RuneCountInString(c) >= 4 && utf8.RuneCountInString(c) <= 30 && !bad(c) {
				clauses = append(clauses, c)
			}
		}
		if len(clauses) > 0 {
			return pick(r, clauses), true
		}
		rs := []rune(text)
		for try := 0; try < 8 && len(rs) >= 2; try++ {
			n := min(len(rs), r.between(4, 12))
			start := r.intn(len(rs) - n + 1)
			s := strings.TrimSpace(string(rs[start : start+n]))
			if !bad(s) {
				return s, true
			}
		}
		return "", false
	}
	// Word boundaries as byte offsets, so the span is a substring of text.
	type span struct{ start, end int }
	var words []span
	in := false
	for i, c := range text {
		if unicode.IsSpace(c) {
			if in {
				words[len(words)-1].end = i
				in = false
			}
			continue
		}
		if !in {
			words = append(words, span{start: i, end: len(text)})
			in = true
		}
	}
	for try := 0; try < 8 && len(words) > 0; try++ {
		n := min(len(words), r.between(3, 8))
		first := r.intn(len(words) - n + 1)
		s := text[words[first].start:words[first+n-1].end]
		s = strings.TrimRight(s, ".,;:")
		if !bad(s) && len(s) <= 120 {
			return s, true
		}
	}
	return "", false
}
