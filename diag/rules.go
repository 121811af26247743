package diag

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentlab/agentlab/docs"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// DocsURL is where the diagnostics page is read online; a rule's helpUri
// is this plus the anchor of its code.
const DocsURL = "https://github.com/agentlab/agentlab/blob/main/" + docs.DiagnosticsPage

// ruleText is what SARIF says about one code, taken from the diagnostics
// page the binary embeds.
type ruleText struct {
	short, full, helpText, helpMarkdown, helpURI string
}

var markdownCode = lazyre.New("`([^`]*)`")

// ruleFor describes code from docs/diagnostics.md: the short description
// is a sentence (the code's meaning, or what its section is about), the
// full description adds the page's bad example or paragraph, and help
// ends with the fix and the link to the code's anchor.
func ruleFor(code string) ruleText {
	c, ok := docs.Codes()[code]
	if !ok {
		url := DocsURL
		return ruleText{
			short:        sentence(code + " has no entry in the diagnostics page"),
			full:         sentence("The message of each result says what is wrong and how to fix it"),
			helpText:     "See " + url,
			helpMarkdown: "See [" + docs.DiagnosticsPage + "](" + url + ").",
			helpURI:      url,
		}
	}
	url := DocsURL
	if c.Anchor != "" {
		url += "#" + c.Anchor
	}
	short := c.Meaning
	if short == "" {
		short = "a problem with " + strings.TrimSpace(c.Subject)
		if words := codeWords(code); words != "" {
			short += " (" + words + ")"
		}
	}
	short = sentence(plain(short))
	full := short
	switch {
	case c.Detail != "":
		full = sentence(plain(c.Detail))
		if c.Meaning != "" {
			full = short + " For example: " + closed(plain(c.Detail))
		}
	case c.Bad != "":
		full = short + " For example: " + closed(plain(c.Bad))
	}
	help, helpMD := full, full
	switch {
	case c.Detail != "":
		helpMD = short + "\n\n" + c.Detail
	case c.Bad != "":
		helpMD = short + "\n\nFor example: " + c.Bad
	}
	if c.Fix != "" {
		help += " Fix: " + sentence(plain(c.Fix))
		helpMD += "\n\n**Fix:** " + sentence(c.Fix)
	}
	help += " See " + url
	helpMD += "\n\n[" + code + " in " + docs.DiagnosticsPage + "](" + url + ")"
	return ruleText{short: short, full: full, helpText: help, helpMarkdown: strings.TrimSpace(helpMD), helpURI: url}
}

// codeWords is the part of a code after its family, as words:
// E-EXPR-EMPTY → "empty".
func codeWords(code string) string {
	parts := strings.Split(code, "-")
	if len(parts) < 3 {
		return ""
	}
	return strings.ToLower(strings.Join(parts[2:], " "))
}

// plain drops fence lines and the backticks of inline code, and joins
// lines.
func plain(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "```") {
			keep = append(keep, l)
		}
	}
	return strings.Join(strings.Fields(markdownCode.ReplaceAllString(strings.Join(keep, "\n"), "$1")), " ")
}

// sentence starts s with a capital letter and ends it with a full stop,
// so that texts joined one after another read as separate sentences.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	return closed(s)
}

// closed ends s with a full stop unless it ends a sentence already (an
// example keeps its case: "when: \"\"" is not capitalised).
func closed(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".)") {
		return s
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
		return s
	}
	return s + "."
}
