package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/parser/lexer"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// source is one expression after parsing: the tree plus everything needed
// to map the parser's rune offsets back to byte offsets in the string as
// written. Check, Compile and the evaluator all start from parseSource, so
// lint and run can never disagree about what an expression means.
type source struct {
	src  string // the string as written
	base int    // byte offset in src of the text handed to the parser
	text string // what the parser sees
	// runes[i] is the byte offset in src of rune i of text; the last entry
	// is the end of text. It is nil when text is ASCII, where rune i is
	// byte i (see runeAt).
	runes  []int
	tree   ast.Node
	issues []Issue
}

// callWords are the whitelisted functions whose names expr-lang's lexer
// reads as infix operators (`a contains b`). A call such as contains(a, b)
// is handed to the parser with the first letter upper-cased (same length,
// so every offset stays exact) and renamed back after parsing.
var callWords = map[string]string{
	"contains":   "Contains",
	"startsWith": "StartsWith",
	"endsWith":   "EndsWith",
}

// parseSource lexes, pre-checks and parses src. On any error issue, tree
// is nil.
func parseSource(src string) *source {
	s := &source{src: src, text: src}
	trimmed := strings.TrimSpace(src)
	lead := strings.Index(src, trimmed)
	if trimmed == "" {
		s.add(0, len(src), diag.Error, CodeEmpty, "write an expression, for example vars.status == 'ok'",
			"empty expression")
		return s
	}
	if strings.HasPrefix(trimmed, "{{") && strings.HasSuffix(trimmed, "}}") && len(trimmed) >= 4 {
		inner := trimmed[2 : len(trimmed)-2]
		if !strings.Contains(inner, "{{") && !strings.Contains(inner, "}}") {
			if strings.TrimSpace(inner) == "" {
				s.add(lead, lead+len(trimmed), diag.Error, CodeEmpty,
					"write an expression, for example vars.status == 'ok'", "empty expression inside {{ }}")
				return s
			}
			s.add(lead, lead+len(trimmed), diag.Hint, CodeBracesHint,
				fmt.Sprintf("drop the braces: write %s", strings.TrimSpace(inner)),
				"expressions are evaluated directly; the surrounding {{ }} is ignored")
			s.base = lead + 2
			s.text = inner
		}
	}
	if !isASCII(s.text) {
		s.runes = runeOffsets(s.text, s.base)
	}

	text, renamed := s.text, map[int]string(nil)
	if needsTokens(s.text) { // most expressions: the parser's own lexing is the only one
		toks := lexAll(s.text)
		if s.precheck(toks) {
			return s
		}
		text, renamed = s.rewriteCalls(toks)
	}

	tree, err := safeParse(text)
	if err != nil {
		from, to := 0, s.lastRune()
		msg := err.Error()
		if fe, ok := err.(*file.Error); ok {
			from, to, msg = fe.From, fe.To, fe.Message
		}
		start, end := s.span(from, to)
		if strings.Contains(msg, "token EOF") || strings.Contains(msg, "unexpected end") {
			start, end = s.base+len(s.text), s.base+len(s.text) // the expression stops short
		}
		s.add(start, end, diag.Error, CodeSyntax, syntaxFix(msg), "syntax error: %s", tidyMessage(msg))
		return s
	}
	s.tree = tree.Node
	renameCalls(&s.tree, renamed)
	return s
}

// add appends an issue.
func (s *source) add(from, to int, sev diag.Severity, code, fix, format string, args ...any) {
	if to < from {
		to = from
	}
	s.issues = append(s.issues, Issue{Offset: from, End: to, Severity: sev, Code: code,
		Message: fmt.Sprintf(format, args...), Fix: fix})
}

// span converts a parser location (runes of text, end exclusive) into byte
// offsets of src.
func (s *source) span(from, to int) (int, int) {
	last := s.lastRune()
	from = max(0, min(from, last))
	to = max(from, min(to, last))
	return s.runeAt(from), s.runeAt(to)
}

// runeAt is the byte offset in src of rune i of text (i ≤ lastRune()).
func (s *source) runeAt(i int) int {
	if s.runes == nil {
		return s.base + i
	}
	return s.runes[i]
}

// lastRune is the index of the end of text in rune offsets.
func (s *source) lastRune() int {
	if s.runes == nil {
		return len(s.text)
	}
	return len(s.runes) - 1
}

func isASCII(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// nodeSpan is span for an AST node's location.
func (s *source) nodeSpan(n ast.Node) (int, int) {
	if n == nil {
		return s.base, s.base + len(s.text)
	}
	loc := n.Location()
	if loc.From == 0 && loc.To == 0 {
		return s.whole() // a node the parser left without a position
	}
	return s.span(loc.From, loc.To)
}

// fullSpan is the span of n and everything below it.
func (s *source) fullSpan(n ast.Node) (int, int) {
	if n == nil {
		return s.whole()
	}
	from, to := s.nodeSpan(n)
	ast.Walk(&n, spanner{s: s, from: &from, to: &to})
	return from, to
}

type spanner struct {
	s        *source
	from, to *int
}

func (sp spanner) Visit(n *ast.Node) {
	loc := (*n).Location()
	if loc.From == 0 && loc.To == 0 {
		return
	}
	f, t := sp.s.span(loc.From, loc.To)
	*sp.from = min(*sp.from, f)
	*sp.to = max(*sp.to, t)
}

// whole is the span of the parsed text without surrounding blanks.
func (s *source) whole() (int, int) {
	t := strings.TrimSpace(s.text)
	lead := strings.Index(s.text, t)
	return s.base + lead, s.base + lead + len(t)
}

// runeOffsets maps each rune of text to its byte offset plus base. Invalid
// UTF-8 bytes count as one rune each, as in the lexer.
func runeOffsets(text string, base int) []int {
	out := make([]int, 0, len(text)+1)
	for i := range text {
		out = append(out, base+i)
	}
	return append(out, base+len(text))
}

// lexAll returns the tokens of text up to the first lexing error (which
// the parser then reports), without the EOF token.
func lexAll(text string) (toks []lexer.Token) {
	defer func() { _ = recover() }() // a lexer fault leaves the parser to report it
	l := lexer.New()
	l.Reset(file.NewSource(text))
	for {
		t, err := l.Next()
		if err != nil || t.Kind == lexer.EOF {
			return toks
		}
		toks = append(toks, t)
	}
}

// precheck finds the mistakes that people carry over from templates and
// other languages, so they get a precise message instead of a generic
// syntax error. It reports whether it found any.
func (s *source) precheck(toks []lexer.Token) bool {
	found := false
	hasIf := false
	for _, t := range toks {
		if t.Is(lexer.Operator, "if") {
			hasIf = true
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Is(lexer.Bracket, "{") && i+1 < len(toks) && toks[i+1].Is(lexer.Bracket, "{") && toks[i+1].From == t.To:
			from, _ := s.span(t.From, t.To)
			to := from + 2
			if j := strings.Index(s.src[from:], "}}"); j >= 0 {
				to = from + j + 2
			}
			inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s.src[from:to], "{{"), "}}"))
			s.add(from, to, diag.Error, CodeBraces,
				fmt.Sprintf("drop the braces and refer to the value directly: %s", inner),
				"{{ }} is template syntax; expressions are evaluated directly, never rendered")
			found = true
			i++
		case t.Is(lexer.Operator, "|"):
			s.pipe(toks, i)
			found = true
		case t.Is(lexer.Operator, "=") && !(i >= 2 && toks[i-2].Is(lexer.Operator, "let")):
			from, to := s.span(t.From, t.To)
			fixed := s.src[s.base:from] + "==" + s.src[to:s.base+len(s.text)]
			s.add(from, to, diag.Error, CodeAssign,
				fmt.Sprintf("write == to compare: %s", strings.TrimSpace(fixed)),
				"\"=\" is not a comparison")
			found = true
		case t.Is(lexer.Bracket, "{") && !hasIf && isSetLiteral(toks[i:]):
			from, _ := s.span(t.From, t.To)
			end := i
			for end < len(toks) && !toks[end].Is(lexer.Bracket, "}") {
				end++
			}
			to := s.base + len(s.text)
			if end < len(toks) {
				_, to = s.span(toks[end].From, toks[end].To)
			}
			body := strings.TrimSuffix(strings.TrimPrefix(s.src[from:to], "{"), "}")
			s.add(from, to, diag.Error, CodeSet,
				fmt.Sprintf("use a list: [%s]", strings.TrimSpace(body)),
				"set literals do not exist; {…} is a map and needs key: value pairs")
			found = true
		}
	}
	return found
}

// isSetLiteral reports whether toks start with `{ literal ,` or `{ literal }`.
func isSetLiteral(toks []lexer.Token) bool {
	if len(toks) < 3 {
		return false
	}
	k := toks[1]
	if k.Kind != lexer.String && k.Kind != lexer.Number && k.Kind != lexer.Identifier {
		return false
	}
	return toks[2].Is(lexer.Operator, ",") || toks[2].Is(lexer.Bracket, "}")
}

// filterFuncs maps template filters to the expression that does the same.
var filterFuncs = map[string]string{
	"length": "len(%s)", "len": "len(%s)", "count": "len(%s)", "upper": "upper(%s)", "lower": "lower(%s)",
	"trim": "trim(%s)", "keys": "keys(%s)", "values": "values(%s)", "int": "int(%s)", "float": "float(%s)",
	"string": "string(%s)", "abs": "abs(%s)", "round": "round(%s)", "sum": "sum(%s)", "min": "min(%s)",
	"max": "max(%s)", "avg": "avg(%s)", "first": "%s[0]", "last": "%s[-1]", "default": "%s ?? 'value'",
	"json": "string(%s)", "compact": "string(%s)",
}

// pipe reports a filter pipe at toks[i] with the equivalent call.
func (s *source) pipe(toks []lexer.Token, i int) {
	t := toks[i]
	from, to := s.span(t.From, t.To)
	// The piped operand runs back to an earlier pipe, or to the bracket or
	// comma that encloses it ("len(vars.x | length)" pipes vars.x).
	start := s.base
	depth := 0
scan:
	for j := i - 1; j >= 0; j-- {
		tj := toks[j]
		switch {
		case tj.Kind == lexer.Bracket && strings.ContainsAny(tj.Value, ")]}"):
			depth++
		case tj.Kind == lexer.Bracket && strings.ContainsAny(tj.Value, "([{"):
			if depth == 0 {
				_, start = s.span(tj.From, tj.To)
				break scan
			}
			depth--
		case depth == 0 && (tj.Is(lexer.Operator, "|") || tj.Is(lexer.Operator, ",")):
			_, start = s.span(tj.From, tj.To)
			break scan
		}
	}
	left := strings.TrimSpace(s.src[start:from])
	fix := "expressions have no filters; call a function such as len(x) instead"
	if i+1 < len(toks) && toks[i+1].Kind == lexer.Identifier {
		name := toks[i+1].Value
		_, to = s.span(toks[i+1].From, toks[i+1].To)
		if f, ok := filterFuncs[name]; ok && left != "" {
			fix = "call the function instead of piping: " + fmt.Sprintf(f, left)
		}
	}
	s.add(from, to, diag.Error, CodePipe, fix, "filter pipes (x | f) belong to templates, not expressions")
}

// rewriteCalls returns text with contains(…)/startsWith(…)/endsWith(…)
// calls renamed so that the parser reads them as calls (see callWords).
func (s *source) rewriteCalls(toks []lexer.Token) (string, map[int]string) {
	var b []byte
	renamed := map[int]string{}
	for i, t := range toks {
		up, ok := callWords[t.Value]
		if !ok || t.Kind != lexer.Operator || i+1 >= len(toks) || !toks[i+1].Is(lexer.Bracket, "(") {
			continue
		}
		p := i - 1
		if p >= 0 && (toks[p].Is(lexer.Operator, ".") || toks[p].Is(lexer.Operator, "?.")) {
			continue // a property name
		}
		if p >= 0 && toks[p].Is(lexer.Operator, "not") {
			p--
		}
		if p >= 0 && endsOperand(toks[p]) {
			continue // the infix operator: a contains (b)
		}
		if b == nil {
			b = []byte(s.text)
		}
		off := s.runeAt(t.From) - s.base
		copy(b[off:], up)
		renamed[t.From] = t.Value
	}
	if b == nil {
		return s.text, nil
	}
	return string(b), renamed
}

// endsOperand reports whether a token can end an operand, so that a
// following word is an infix operator.
func endsOperand(t lexer.Token) bool {
	switch t.Kind {
	case lexer.Identifier, lexer.Number, lexer.String, lexer.Bytes:
		return true
	case lexer.Bracket:
		return t.Value == ")" || t.Value == "]" || t.Value == "}"
	}
	return false
}

// renameCalls undoes rewriteCalls in the tree: only calls at rewritten
// offsets are renamed, so a hand-written Contains(…) stays an unknown
// function.
func renameCalls(root *ast.Node, renamed map[int]string) {
	if len(renamed) > 0 {
		ast.Walk(root, renamer(renamed))
	}
}

type renamer map[int]string

func (r renamer) Visit(n *ast.Node) {
	if c, ok := (*n).(*ast.CallNode); ok {
		if id, ok := c.Callee.(*ast.IdentifierNode); ok {
			if name, ok := r[id.Location().From]; ok {
				id.Value = name
			}
		}
	}
}

// safeParse runs the expr-lang parser, turning a panic into an error so
// that no user input can crash lint or run.
func safeParse(text string) (tree *parser.Tree, err error) {
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, fmt.Errorf("the expression could not be parsed (%v)", r)
		}
	}()
	tree, err = parser.ParseWithConfig(text, nil)
	if err == nil && (tree == nil || tree.Node == nil) {
		err = fmt.Errorf("the expression could not be parsed")
	}
	return tree, err
}

var tokenRE = lazyre.New(`(?:Operator|Bracket|Identifier|Number|String|Bytes)\("((?:[^"\\]|\\.)*)"\)`)

// tidyMessage rewrites the parser's token dumps (Operator("=")) as the
// text the user wrote.
func tidyMessage(m string) string {
	m = tokenRE.ReplaceAllString(m, `"$1"`)
	m = strings.ReplaceAll(m, "token EOF", "end of expression")
	return m
}

// syntaxFix suggests how to repair a syntax error from its message.
func syntaxFix(msg string) string {
	switch {
	case strings.Contains(msg, "literal not terminated"):
		return "close the string with the quote it starts with"
	case strings.Contains(msg, "unexpected end"), strings.Contains(msg, "EOF"):
		return "the expression ends too early: complete the operand or close the bracket"
	case strings.Contains(msg, "map key"):
		return "write a map as {key: value, …} or a list as [a, b]"
	case strings.Contains(msg, "unrecognized character"):
		return "remove the character; strings must be quoted with ' or \""
	}
	return "check the syntax: compare with == and !=, combine with and/or/not, quote strings"
}
