package provider

import (
	"sort"
	"strings"
	"sync"
	"unicode"
)

// lastUser returns the content of the last user message, or "".
func lastUser(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// firstUser returns the content of the first user message, or "": the
// original request, before any follow-up such as a repair instruction.
func firstUser(msgs []Message) string {
	for _, m := range msgs {
		if m.Role == RoleUser {
			return m.Content
		}
	}
	return ""
}

// lastToolResult returns the last tool message and the name of the tool it
// answers (looked up through the assistant's tool call), if any.
func lastToolResult(msgs []Message) (Message, string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != RoleTool {
			continue
		}
		name := ""
		for j := i - 1; j >= 0 && name == ""; j-- {
			for _, tc := range msgs[j].ToolCalls {
				if tc.ID == msgs[i].ToolCallID {
					name = tc.Name
				}
			}
		}
		return msgs[i], name, true
	}
	return Message{}, "", false
}

// cjkNumerals are characters the issuance checker may read as numbers; the
// mock never writes them outside markers in a report, and leaves keywords
// containing them out.
const cjkNumerals = "〇零一二两三四五六七八九十百千万亿半成倍"

// stopwords are left out when restating a question's key words (built
// on first use: only the mock provider reads them).
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again all also am an and any are as at be because been
		before being below between both but by can could did do does doing down during each few for from
		further had has have having he her here hers him his how i if in into is it its itself just let me
		more most my no nor not now of off on once only or other our ours out over own please same she should
		so some such than that the their theirs them then there these they this those through to too under
		until up very was we were what when where which while who whom why will with would you your yours
		write give tell show explain describe summarize summarise list find make using use based
		extract classify decide determine identify provide create draft answer check compare analyze analyse`) {
		m[w] = true
	}
	return m
})

// keywords returns up to max distinct key words of s in order of first
// appearance: alphabetic words that are not stopwords, and short runs of
// CJK text. With clean set, words containing digits or CJK numerals are
// dropped, so that a report never restates a number outside a marker.
func keywords(s string, max int, clean bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w == "" || seen[w] || len(out) >= max {
			return
		}
		if clean && strings.ContainsFunc(w, func(r rune) bool {
			return unicode.IsDigit(r) || strings.ContainsRune(cjkNumerals, r)
		}) {
			return
		}
		seen[w] = true
		out = append(out, w)
	}
	var word, han []rune
	flushWord := func() {
		w := strings.Trim(strings.ToLower(string(word)), "-_'")
		word = word[:0]
		if len([]rune(w)) >= 3 && !stopwords()[w] {
			add(w)
		}
	}
	flushHan := func() {
		if len(han) >= 2 {
			if len(han) > 6 {
				han = han[:6]
			}
			add(string(han))
		}
		han = han[:0]
	}
	for _, r := range s {
		switch {
		case isCJK(r) && unicode.IsLetter(r) && !strings.ContainsRune("的了是吗呢请和与在对把被及", r):
			flushWord()
			han = append(han, r)
		case !isCJK(r) && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '\''):
			flushHan()
			word = append(word, r)
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	return out
}

// mostlyCJK reports whether s has more CJK letters than other letters, in
// which case the mock answers in Chinese.
func mostlyCJK(s string) bool {
	cjk, other := 0, 0
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk > 0 && cjk*2 >= other
}

// joinWords joins words as a list: "a", "a and b", "a, b and c".
func joinWords(ws []string, zh bool) string {
	and, sep := " and ", ", "
	if zh {
		and, sep = "和", "、"
	}
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], sep) + and + ws[len(ws)-1]
}

// Sentence parts of a plain answer; one of each is chosen by the seed, so
// different seeds usually give different answers and the same seed always
// the same one. The Chinese parts contain no numeral characters.
var (
	openEN = []string{
		"Regarding %s: ",
		"On the question of %s, ",
		"Looking at %s, ",
		"In short, for %s, ",
		"Considering %s, ",
	}
	bodyEN = []string{
		"the available information points in a consistent direction",
		"the picture is broadly stable with a few open points",
		"the main drivers are clear and the details need confirming",
		"the evidence supports a cautious reading",
		"the signals are mixed but lean positive",
		"the essentials are settled and the remaining risks are small",
	}
	closeEN = []string{
		"; the next step is to confirm this against the source data.",
		"; it is worth checking the underlying records before acting.",
		"; a follow-up review would make this firmer.",
		". No further action is needed at this point.",
		". This should be revisited when new data arrives.",
	}
	openZH = []string{
		"关于%s：",
		"针对%s，",
		"就%s而言，",
		"从%s来看，",
	}
	bodyZH = []string{
		"现有信息指向较为稳定的方向",
		"整体情况平稳，仍有少量待确认的细节",
		"主要因素清楚，细节有待核实",
		"证据支持审慎的判断",
		"信号有好有坏，总体偏积极",
	}
	closeZH = []string{
		"，建议对照源数据进行确认。",
		"，行动前值得核对底层记录。",
		"，后续复核会让结论更可靠。",
		"。目前无需更多行动。",
	}
)

// topWords keeps the n longest of ws (content words tend to be longer than
// the rest), in their original order.
func topWords(ws []string, n int) []string {
	if len(ws) <= n {
		return ws
	}
	idx := make([]int, len(ws))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return len([]rune(ws[idx[a]])) > len([]rune(ws[idx[b]])) })
	keep := idx[:n]
	sort.Ints(keep)
	out := make([]string, n)
	for i, k := range keep {
		out[i] = ws[k]
	}
	return out
}

// keyWords returns the three words that best stand for question.
func keyWords(question string, clean bool) []string {
	return topWords(keywords(question, 12, clean), 3)
}

// plainAnswer writes a short answer that restates the question's key words.
func plainAnswer(r *rng, question string, clean bool) string {
	zh := mostlyCJK(question)
	kws := keyWords(question, clean)
	var b strings.Builder
	if zh {
		topic := "这个问题"
		if len(kws) > 0 {
			topic = joinWords(kws, true)
		}
		b.WriteString(strings.Replace(pick(r, openZH), "%s", topic, 1))
		b.WriteString(pick(r, bodyZH))
		b.WriteString(pick(r, closeZH))
		return b.String()
	}
	topic := "the question"
	if len(kws) > 0 {
		topic = joinWords(kws, false)
	}
	b.WriteString(strings.Replace(pick(r, openEN), "%s", topic, 1))
	b.WriteString(pick(r, bodyEN))
	b.WriteString(pick(r, closeEN))
	return b.String()
}

// truncateTokens cuts s to at most max estimated tokens, at a word
// boundary where there is one.
func truncateTokens(s string, max int) (string, bool) {
	if max <= 0 || EstimateTokens(s) <= max {
		return s, false
	}
	rs := []rune(s)
	lo, hi := 0, len(rs)
	for lo < hi { // largest prefix that fits
		mid := (lo + hi + 1) / 2
		if EstimateTokens(string(rs[:mid])) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	cut := string(rs[:lo])
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return cut, true
}
