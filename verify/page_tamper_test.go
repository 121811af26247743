package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// pageTamper is an edit a person could make to bundle.html with a text
// editor, aimed at what the page shows rather than at the evidence.
type pageTamper struct {
	name  string
	edit  func(t *testing.T, b string) string
	check string        // the check the CLI must fail ("" = must pass)
	late  time.Duration // how long a planted script may act after the verdict
}

// sub replaces the n-th (1-based) occurrence of old.
func sub(old, new string, n int) func(t *testing.T, b string) string {
	return func(t *testing.T, b string) string {
		t.Helper()
		i := -1
		for k := 0; k < n; k++ {
			j := strings.Index(b[i+1:], old)
			if j < 0 {
				t.Fatalf("the bundle has fewer than %d of %q", n, old)
			}
			i += 1 + j
		}
		return b[:i] + new + b[i+len(old):]
	}
}

// before inserts s before the first occurrence of at.
func before(at, s string) func(t *testing.T, b string) string { return sub(at, s+at, 1) }

// cutElement removes from the first occurrence of open through the next close.
func cutElement(open, close string) func(t *testing.T, b string) string {
	return func(t *testing.T, b string) string {
		t.Helper()
		i := strings.Index(b, open)
		if i < 0 {
			t.Fatalf("no %q", open)
		}
		j := strings.Index(b[i:], close)
		return b[:i] + b[i+j+len(close):]
	}
}

const (
	gmvSpan   = `<span class="al-ref al-num" tabindex="0" data-k="m" data-a="37"`
	shareSpan = `<span class="al-ref al-num" tabindex="0" data-k="m" data-a="82"`
	shareRow  = `<tr><td data-k="mn" data-n="north_share"`
	headMeta  = `<meta name="referrer" content="no-referrer">`
	cspOpen   = `<meta http-equiv="Content-Security-Policy"`
	pending   = `<section id="al-verdict" class="al-verdict" data-status="pending">`
	forgedBox = `<section class="al-verdict" data-status="ok"><h2>Verified</h2><p>Everything in this file matches its seal (checked offline in this browser).</p></section>`
	rewrite   = `setTimeout(function(){document.querySelectorAll('[data-n=gmv]').forEach(function(e){e.textContent='9,999.00 CNY'});var v=document.getElementById('al-verdict');if(v){v.setAttribute('data-status','ok');v.textContent='Verified'}},300)`
)

// pageTampers are the variants of the page: styling, injected markup,
// swapped head elements, white space, forged and removed verdicts, and
// edits to every part of the document. Each must fail both verifiers.
func pageTampers() []pageTamper {
	cspLine := func(t *testing.T, b string) string {
		t.Helper()
		i := strings.Index(b, cspOpen)
		return b[i : i+strings.Index(b[i:], "\n")]
	}
	swapCSP := func(with string) func(t *testing.T, b string) string {
		return func(t *testing.T, b string) string { return strings.Replace(b, cspLine(t, b), with, 1) }
	}
	return []pageTamper{
		// style attributes: a policy without 'unsafe-inline' ignores them, and
		// the document check refuses them
		{"style attribute hides the real figure", sub(gmvSpan, `<span style="display:none" class="al-ref al-num" tabindex="0" data-k="m" data-a="37"`, 1), CheckReport, 0},
		{"style attribute hides the figure and a fake one shows beside it", sub(gmvSpan, `<span class="al-num">9,999.00 CNY</span><span style="display:none" class="al-ref al-num" tabindex="0" data-k="m" data-a="37"`, 1), CheckReport, 0},
		{"style attribute reverses a number with a bidi override", sub(shareSpan, `<span style="unicode-bidi:bidi-override;direction:rtl" class="al-ref al-num" tabindex="0" data-k="m" data-a="82"`, 1), CheckReport, 0},
		{"style attribute hides a metric row", sub(shareRow, `<tr style="display:none"><td data-k="mn" data-n="north_share"`, 1), CheckReport, 0},
		{"style attribute on body", sub("<body>", `<body style="visibility:hidden">`, 1), CheckPage, 0},
		{"style attribute on html", sub(`<html lang="en">`, `<html lang="en" style="filter:invert(1)">`, 1), CheckPage, 0},
		{"dir attribute reverses a number", sub(shareSpan, `<span dir="rtl" class="al-ref al-num" tabindex="0" data-k="m" data-a="82"`, 1), CheckReport, 0},
		{"hidden attribute on a metric row", sub(shareRow, `<tr hidden><td data-k="mn" data-n="north_share"`, 1), CheckReport, 0},
		{"class of a number changed to masked", sub(gmvSpan, `<span class="al-ref al-masked" tabindex="0" data-k="m" data-a="37"`, 1), CheckReport, 0},
		{"class removed from the narrative (white space collapses)", sub(`<div class="al-text" data-node="brief">`, `<div data-node="brief">`, 1), CheckReport, 0},
		{"violation title reworded", sub(`title="bare_number: a number without a marker"`, `title="checked"`, 1), CheckReport, 0},
		{"violation mark removed", sub(`<mark class="al-violation" title="bare_number: a number without a marker"><span data-k="s" data-a="309" data-b="311">12</span></mark>`, `<span data-k="s" data-a="309" data-b="311">12</span>`, 1), CheckReport, 0},
		{"attribute named __proto__ on a number", sub(gmvSpan, `<span __proto__="x" class="al-ref al-num" tabindex="0" data-k="m" data-a="37"`, 1), CheckReport, 0},
		{"tabindex removed from a number", sub(gmvSpan, `<span class="al-ref al-num" data-k="m" data-a="37"`, 1), CheckReport, 0},
		{"source span of a part moved", sub(`data-a="27" data-b="37"`, `data-a="27" data-b="36"`, 1), CheckReport, 0},
		// injected markup
		{"text injected inside a label span", sub(`<span class="al-label">source </span>`, `<span class="al-label">source (revised: GMV 9,999.00 CNY) </span>`, 1), CheckReport, 0},
		{"span with an unknown kind injected", before(`<span data-k="s" data-a="46"`, `<span data-k="zz"> (restated: 9,999.00 CNY)</span>`), CheckReport, 0},
		{"fake table-name span injected", before(`<span data-k="s" data-a="255"`, `<code class="al-ref" tabindex="0" data-k="t" data-n="refunds">refunds</code>`), CheckReport, 0},
		{"number wrapped in bold", sub(`data-set="kpi">2,800.00 CNY</span>`, `data-set="kpi"><b>2,800.00 CNY</b></span>`, 1), CheckReport, 0},
		{"text span split in two", sub(`<span data-k="s" data-a="0" data-b="17">Weekly brief for </span>`, `<span data-k="s" data-a="0" data-b="7">Weekly </span><span data-k="s" data-a="7" data-b="17">brief for </span>`, 1), CheckReport, 0},
		{"comment injected in the report", before(`<section class="al-metrics">`, `<!-- reviewed -->`), CheckReport, 0},
		{"line break element in the narrative", before(`<span data-k="s" data-a="27"`, `<br>`), CheckReport, 0},
		{"noscript block with a verdict", before("<!--al-report-->", "<noscript>"+forgedBox+"</noscript>"), CheckPage, 0},
		{"image added", before(`<aside id="al-panel"`, `<img alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">`), CheckPage, 0},
		{"template element added", before(`<aside id="al-panel"`, `<template><p>x</p></template>`), CheckPage, 0},
		{"report shown twice", func(t *testing.T, b string) string {
			i, j := strings.Index(b, "<main id=\"al-report\">"), strings.Index(b, "</main>")+len("</main>")
			return b[:j] + strings.Replace(b[i:j], `id="al-report"`, `id="al-copy"`, 1) + b[j:]
		}, CheckReport, 0},
		{"hidden attribute on the report", sub(`<main id="al-report">`, `<main id="al-report" hidden>`, 1), CheckReport, 0},
		{"event handler on body", sub("<body>", `<body onload="x()">`, 1), CheckPage, 0},
		// head swaps with the same element count
		{"style element swapped in for a head element", sub(headMeta, `<style>.al-num{color:#fff}</style>`, 1), CheckPage, 0},
		{"script swapped in for the policy rewrites a number after the verdict", swapCSP("<script>" + rewrite + "</script>"), CheckPage, 800 * time.Millisecond},
		{"policy relaxed to inline styles", func(t *testing.T, b string) string {
			l := cspLine(t, b)
			return strings.Replace(b, l, regexp.MustCompile(`style-src &#39;sha256-[^&]*&#39;`).ReplaceAllString(l, "style-src &#39;unsafe-inline&#39;"), 1)
		}, CheckPage, 0},
		{"policy relaxed and a style attribute added", func(t *testing.T, b string) string {
			l := cspLine(t, b)
			b = strings.Replace(b, l, regexp.MustCompile(`style-src &#39;sha256-[^&]*&#39;`).ReplaceAllString(l, "style-src &#39;unsafe-inline&#39;"), 1)
			return strings.Replace(b, gmvSpan, `<span style="display:none" class="al-ref al-num" tabindex="0" data-k="m" data-a="37"`, 1)
		}, CheckPage, 0},
		{"viewport changed", sub(`content="width=device-width, initial-scale=1"`, `content="width=200"`, 1), CheckPage, 0},
		{"charset swapped for a base element", sub(`<meta charset="utf-8">`, `<base target="_blank">`, 1), CheckPage, 0},
		{"title element gets an attribute", sub("<title>", `<title lang="de">`, 1), CheckPage, 0},
		{"language changed", sub(`<html lang="en">`, `<html lang="ar">`, 1), CheckPage, 0},
		// white space
		{"blank lines inside the narrative", before(`<span data-k="s" data-a="27"`, "\n\n"), CheckReport, 0},
		{"spaces after a number in the narrative", sub(`2,800.00 CNY</span><span data-k="s" data-a="46"`, `2,800.00 CNY</span>   <span data-k="s" data-a="46"`, 1), CheckReport, 0},
		{"blank line between head elements", sub("<meta charset=\"utf-8\">\n", "<meta charset=\"utf-8\">\n\n", 1), CheckPage, 0},
		{"newline after the end of the page", func(t *testing.T, b string) string { return b + "\n" }, CheckPage, 0},
		{"space in the report data (al-data)", sub(`id="al-data">{"meta":`, `id="al-data">{ "meta":`, 1), CheckEvidence, 0},
		{"space in the manifest", sub(`id="al-bundle">{"format":1,`, `id="al-bundle">{"format": 1,`, 1), CheckPage, 0},
		{"artifact text escaped differently", func(t *testing.T, b string) string {
			i := strings.Index(b, artifactOpen)
			j := i + strings.Index(b[i:], `"text":"`) + len(`"text":"`)
			return b[:j] + `\u007b` + b[j+1:]
		}, CheckPage, 0},
		// forged and removed verdicts
		{"static verified block added, the real one hidden", func(t *testing.T, b string) string {
			b = strings.Replace(b, pending, `<section id="al-verdict" class="al-verdict" data-status="pending" hidden>`, 1)
			return strings.Replace(b, "<!--al-report-->", forgedBox+"<!--al-report-->", 1)
		}, CheckPage, 0},
		{"verdict box deleted", cutElement(pending, "</section>\n"), CheckPage, 0},
		{"verdict box says verified", func(t *testing.T, b string) string {
			i := strings.Index(b, pending)
			j := i + strings.Index(b[i:], "</section>\n")
			return b[:i] + `<section id="al-verdict" class="al-verdict" data-status="ok"><h2>Verified</h2>` + b[j:]
		}, CheckPage, 0},
		{"verdict box replaced by a forged one with the verifier's id", func(t *testing.T, b string) string {
			i := strings.Index(b, pending)
			j := i + strings.Index(b[i:], "</section>\n")
			return b[:i] + strings.Replace(forgedBox, "<section ", `<section id="al-verdict" `, 1) + b[j:]
		}, CheckPage, 0},
		{"verifier script removed", func(t *testing.T, b string) string {
			i := strings.LastIndex(b, "<script>")
			j := strings.LastIndex(b, "</script>")
			return b[:i] + b[j+len("</script>"):]
		}, CheckPage, 0},
		{"verifier script rewritten (its hash no longer matches the policy)", sub("This file does not match its seal", "This file matches its seal", 1), CheckPage, 0},
		// the content
		{"number in the narrative", sub(`data-set="kpi">2,800.00 CNY</span><span data-k="s" data-a="46"`, `data-set="kpi">2,900.00 CNY</span><span data-k="s" data-a="46"`, 1), CheckReport, 0},
		{"number in the metric list", sub(`data-set="kpi">42.9%</td>`, `data-set="kpi">52.9%</td>`, 1), CheckReport, 0},
		{"cell in the evidence appendix", sub(`data-r="1" data-c="amount">800</td>`, `data-r="1" data-c="amount">880</td>`, 2), CheckReport, 0},
		{"SQL text", sub("WHERE week = :week", "WHERE week = :week AND region <> 'west'", 1), CheckReport, 0},
		{"row removed from the narrative table", sub(`<tr><td class="al-ref" tabindex="0" data-k="v" data-q="Q1" data-r="2" data-c="region">east</td><td class="al-ref al-num" tabindex="0" data-k="v" data-q="Q1" data-r="2" data-c="amount">450.25</td></tr>`, "", 1), CheckReport, 0},
		{"heading reworded", sub(`<h2 class="al-label">Narrative</h2>`, `<h2 class="al-label">Audited narrative</h2>`, 1), CheckReport, 0},
		{"run fact edited", sub(`data-n="status">succeeded</dd>`, `data-n="status">approved</dd>`, 1), CheckReport, 0},
		{"tier edited", sub(`data-n="tier">degraded</dd>`, `data-n="tier">formal</dd>`, 1), CheckReport, 0},
		// nothing may be removed from the page structure
		{"side panel removed", cutElement(`<aside id="al-panel"`, "</aside>\n"), CheckPage, 0},
		{"report removed", cutElement(`<main id="al-report">`, "</main>\n"), CheckReport, 0},
		{"report markers removed", func(t *testing.T, b string) string {
			return strings.Replace(strings.Replace(b, "<!--al-report-->", "", 1), "<!--/al-report-->", "", 1)
		}, CheckReport, 0},
		{"report data block removed", cutElement(`<script type="application/json" id="al-data">`, "</script>\n"), CheckEvidence, 0},
		{"metrics section removed", cutElement(`<section class="al-metrics">`, "</section>\n"), CheckReport, 0},
		// the evidence blocks
		{"inputs block removed", func(t *testing.T, b string) string {
			return parsedText(t, b, func(bd *bundle) { delete(bd.arts, inputsHashOf(t, bd)) })
		}, CheckSeal, 0},
		{"extra artifact block", func(t *testing.T, b string) string {
			return parsedText(t, b, func(bd *bundle) { bd.arts[hashid.Sum([]byte("extra")).String()] = []byte("extra") })
		}, CheckSeal, 0},
		{"garbage line after the seal", func(t *testing.T, b string) string {
			return parsedText(t, b, func(bd *bundle) { bd.m.Events = append(bd.m.Events, "garbage") })
		}, CheckEvents, 0},
		{"garbage line after the seal, before a post-seal event", func(t *testing.T, b string) string {
			b = string(lineEditAppend()(t, []byte(b)))
			return parsedText(t, b, func(bd *bundle) {
				n := len(bd.m.Events)
				bd.m.Events = append(bd.m.Events[:n-1:n-1], `{"seq":`, bd.m.Events[n-1])
			})
		}, CheckEvents, 0},
	}
}

// sameDocumentEdits are edits a text editor makes that no HTML reader
// sees: a browser's input stream and tokenizer discard them before any
// script can read the page, so the document — what a person sees and
// what the page's verifier checks — is the export's. Both verifiers
// accept them; the CLI says the bytes are not the export's (byte_exact
// false). docs/verify.md, "Bytes and documents".
func sameDocumentEdits() []pageTamper {
	all := func(old, new string) func(t *testing.T, b string) string {
		return func(t *testing.T, b string) string { return strings.ReplaceAll(b, old, new) }
	}
	return []pageTamper{
		{"CR LF line ends everywhere", all("\n", "\r\n"), "", 0},
		{"CR LF at one line end in the head", sub("<meta charset=\"utf-8\">\n", "<meta charset=\"utf-8\">\r\n", 1), "", 0},
		{"CR LF at one line end in the report", sub("<section class=\"al-narrative\">\n", "<section class=\"al-narrative\">\r\n", 1), "", 0},
		{"lone CR line ends everywhere", all("\n", "\r"), "", 0},
		{"a lone CR at one line end in the report", sub("Narrative</h2>\n", "Narrative</h2>\r", 1), "", 0},
		{"a byte-order mark", func(t *testing.T, b string) string { return "\ufeff" + b }, "", 0},
		{"a byte-order mark and CR LF line ends", func(t *testing.T, b string) string { return "\ufeff" + strings.ReplaceAll(b, "\n", "\r\n") }, "", 0},
		{"a NUL byte in the report's text", sub(`<h2 class="al-label">Narrative</h2>`, "<h2 class=\"al-label\">Narr\x00ative</h2>", 1), "", 0},
		{"a NUL byte between elements of the report", sub("Narrative</h2>\n", "Narrative</h2>\x00\n", 1), "", 0},
		{"a NUL byte after the end of the page", func(t *testing.T, b string) string { return b + "\x00" }, "", 0},
		{"attribute spacing inside a tag", sub(`<main id="al-report">`, `<main  id="al-report" >`, 1), "", 0},
		{"a line break inside a tag", sub(`<main id="al-report">`, "<main\nid=\"al-report\">", 1), "", 0},
		{"an apostrophe written as a named reference", sub(`table&#39;s`, `table&apos;s`, 1), "", 0},
		{"an apostrophe written as a hexadecimal reference", sub(`table&#39;s`, `table&#x27;s`, 1), "", 0},
		{"a letter written as a character reference", sub(`<h2 class="al-label">Narrative</h2>`, `<h2 class="al-label">&#78;arrative</h2>`, 1), "", 0},
		{"an attribute in single quotes", sub(`<main id="al-report">`, `<main id='al-report'>`, 1), "", 0},
		{"an attribute without quotes", sub(`<main id="al-report">`, `<main id=al-report>`, 1), "", 0},
		{"attributes of a number reordered", sub(gmvSpan, `<span tabindex="0" class="al-ref al-num" data-a="37" data-k="m"`, 1), "", 0},
		{"a tag name in capitals", sub(`<h2 class="al-label">Narrative</h2>`, `<H2 class="al-label">Narrative</H2>`, 1), "", 0},
		{"the doctype in lower case", sub("<!DOCTYPE html>", "<!doctype html>", 1), "", 0},
		{"a slash closing a void element", sub(`<meta charset="utf-8">`, `<meta charset="utf-8" />`, 1), "", 0},
		{"a duplicate attribute (the parser keeps the first)", sub(`<main id="al-report">`, `<main id="al-report" id="al-copy">`, 1), "", 0},
		{"space inside an end tag", sub("</main>", "</main >", 1), "", 0},
		{"a blank line before the doctype", func(t *testing.T, b string) string { return "\n" + b }, "", 0},
		{"the charset declaration pushed past the prescan", sub("<html lang=\"en\">\n<head>", "<html lang=\"en\">\n"+strings.Repeat(" ", 2000)+"<head>", 1), "", 0},
	}
}

// parserSeen are edits of the same kinds — NULs, CRs, byte-order marks,
// white space, the doctype — that the parser does see, in an attribute,
// the title, the sealed payload, the script, the text or the document's
// mode: both verifiers fail them.
func parserSeen() []pageTamper {
	return []pageTamper{
		{"a NUL byte in an attribute", sub(`<main id="al-report">`, "<main id=\"al-report\x00\">", 1), CheckReport, 0},
		{"a NUL byte in the title", sub("<title>Bundle", "<title>\x00Bundle", 1), CheckPage, 0},
		{"a NUL byte in the sealed payload", sub(`id="al-bundle">{"format":1,"run":"`, "id=\"al-bundle\">{\"format\":1,\"run\":\"\x00", 1), CheckBundle, 0},
		{"a NUL byte in the report data", sub(`id="al-data">{"meta":`, "id=\"al-data\">\x00{\"meta\":", 1), CheckEvidence, 0},
		{"a NUL byte in the verifier script", func(t *testing.T, b string) string {
			i := strings.LastIndex(b, "<script>") + len("<script>")
			return b[:i] + "\x00" + b[i:]
		}, CheckPage, 0},
		{"a NUL byte in the style sheet", sub("<style>body{", "<style>\x00body{", 1), CheckPage, 0},
		{"a lone CR inside a string of the sealed payload", sub(`id="al-bundle">{"format":1,"run":"`, "id=\"al-bundle\">{\"format\":1,\"run\":\"\r", 1), CheckBundle, 0},
		{"a line break between the sealed payload's fields", sub(`id="al-bundle">{"format":1,`, "id=\"al-bundle\">{\"format\":1,\r\n", 1), CheckPage, 0},
		{"a line break inside an attribute value", sub(`content="width=device-width, initial-scale=1"`, "content=\"width=device-width,\r\ninitial-scale=1\"", 1), CheckPage, 0},
		{"a space after the end of the page", func(t *testing.T, b string) string { return b + " " }, CheckPage, 0},
		{"a tab after the end of the page", func(t *testing.T, b string) string { return b + "\t" }, CheckPage, 0},
		{"text after the end of the page", func(t *testing.T, b string) string { return b + "Verified" }, CheckPage, 0},
		{"a byte-order mark inside the body", sub("<body>", "<body>\ufeff", 1), CheckPage, 0},
		{"a UTF-16 byte-order mark", func(t *testing.T, b string) string { return "\xff\xfe" + b }, CheckPage, 0},
		{"a byte that is not UTF-8 in the report's text", sub(`<h2 class="al-label">Narrative</h2>`, "<h2 class=\"al-label\">Narr\xffative</h2>", 1), CheckReport, 0},
		{"a no-break space in the report's text", sub(`<span data-k="s" data-a="0" data-b="17">Weekly brief for </span>`, "<span data-k=\"s\" data-a=\"0\" data-b=\"17\">Weekly\u00a0brief for </span>", 1), CheckReport, 0},
		{"a zero-width space inside a number", sub(`data-set="kpi">2,800.00 CNY</span>`, "data-set=\"kpi\">2,8\u200b00.00 CNY</span>", 1), CheckReport, 0},
		{"a doctype that puts the page in quirks mode", sub("<!DOCTYPE html>", "<!DOCTYPE html x>", 1), CheckPage, 0},
		{"the doctype removed", sub("<!DOCTYPE html>\n", "", 1), CheckPage, 0},
		{"a comment before the doctype", func(t *testing.T, b string) string { return "<!-- x -->" + b }, CheckPage, 0},
	}
}

func parsedText(t *testing.T, b string, f func(bd *bundle)) string {
	return string(parsed(t, []byte(b), f))
}

func inputsHashOf(t *testing.T, bd *bundle) string {
	evs, _, err := bd.events()
	if err != nil {
		t.Fatal(err)
	}
	ih := inputsHash(evs)
	if ih == "" {
		t.Fatal("the fixture run has no inputs artifact")
	}
	return ih
}

// TestPageTampersCLI: the Go verifier fails every page variant on the
// check that owns the edited part, and accepts every edit no HTML reader
// sees, saying that the file's bytes are not the export's.
func TestPageTampersCLI(t *testing.T) {
	base, _ := fixtureBundle(t)
	if res := verifyVariant(t, base, Options{}); res.ByteExact == nil || !*res.ByteExact {
		t.Fatalf("the untouched bundle: byte_exact %v, want true", res.ByteExact)
	}
	for _, tm := range append(pageTampers(), parserSeen()...) {
		v := tm.edit(t, string(base))
		if v == string(base) {
			t.Fatalf("%s: the edit changed nothing", tm.name)
		}
		res := verifyVariant(t, []byte(v), Options{})
		assertVerdict(t, "go", tamper{name: tm.name, check: tm.check}, res.OK, failing(res.Checks))
	}
	for _, tm := range sameDocumentEdits() {
		v := tm.edit(t, string(base))
		if v == string(base) {
			t.Fatalf("%s: the edit changed nothing", tm.name)
		}
		res := verifyVariant(t, []byte(v), Options{})
		assertVerdict(t, "go", tamper{name: tm.name}, res.OK, failing(res.Checks))
		if res.ByteExact == nil || *res.ByteExact {
			t.Errorf("%s: byte_exact %v, want false", tm.name, res.ByteExact)
		}
		for _, c := range res.Checks {
			if c.Name == CheckPage && !strings.Contains(c.Detail, "no HTML reader sees a difference") {
				t.Errorf("%s: the page check does not say the bytes differ: %s", tm.name, c.Detail)
			}
		}
	}
}

var verifiedWord = regexp.MustCompile(`(^|[^A-Za-z])Verified`)

// TestPageTampersBrowser opens every page variant, each made by editing
// the file — those no HTML reader sees among them — in headless
// Chromium: the page's verdict must be the CLI's,
// and a person must see "Verified" only on a file the CLI accepts; a
// failing page must show nothing of its report. (TestTamperMatrixBrowser
// holds the variants of the evidence to the same rules.)
func TestPageTampersBrowser(t *testing.T) {
	browser(t)
	base, _ := fixtureBundle(t)
	dir := t.TempDir()
	n := 0
	check := func(name string, v []byte, settle time.Duration) {
		t.Helper()
		p := filepath.Join(dir, fmt.Sprintf("p%03d.html", n))
		n++
		if err := os.WriteFile(p, v, 0o644); err != nil {
			t.Fatal(err)
		}
		agree(t, name, verifyVariant(t, v, Options{}), openBundleSettled(t, p, settle))
	}
	for _, tm := range append(append(pageTampers(), parserSeen()...), sameDocumentEdits()...) {
		check(tm.name, []byte(tm.edit(t, string(base))), tm.late)
	}
	if n < 100 {
		t.Fatalf("only %d variants", n)
	}
}

// agree requires the browser's verdict to be the CLI's, "Verified" to be
// visible exactly when the CLI accepts the file, and a failing page to
// show no report (unless its script never ran: then it shows the file's
// own "Not verified" over the unverified copy).
func agree(t *testing.T, name string, goRes *Result, br browserResult) bool {
	t.Helper()
	seen := verifiedWord.MatchString(br.Visible)
	switch {
	case br.OK != goRes.OK:
		t.Errorf("%s: browser ok=%v (%v), CLI ok=%v (%v)", name, br.OK, failing(br.Checks), goRes.OK, failing(goRes.Checks))
	case seen != goRes.OK:
		t.Errorf("%s: a person sees \"Verified\"=%v but the CLI says ok=%v; the page shows %q", name, seen, goRes.OK, clip(br.Visible))
	case !goRes.OK && br.Report && br.Status != "pending":
		t.Errorf("%s: the failing page still shows the report: %q", name, clip(br.Visible))
	default:
		return true
	}
	return false
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestBundleNeedsItsInputs: a run whose inputs artifact went missing from
// the store gets no bundle (one without it would not verify).
func TestBundleNeedsItsInputs(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{})
	rd, err := readRunDir(r.Dir, "", 1<<30, 0)
	if err != nil {
		t.Fatal(err)
	}
	id, err := hashid.Parse(inputsHash(rd.events))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(artifactPath(rd.artifacts, id)); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	err = WriteBundle(&buf, r.Dir, BundleOptions{})
	if err == nil || !strings.Contains(err.Error(), id.Short()+" is missing") {
		t.Fatalf("WriteBundle without the inputs artifact: %v", err)
	}
}
