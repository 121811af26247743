package sqlguard

import (
	"fmt"
	"strings"
)

// kind classifies a lexical token of SQLite's SQL dialect.
type kind int

const (
	tWord   kind = iota // an unquoted identifier or keyword
	tQIdent             // a quoted identifier: "x", `x` or [x]
	tString             // a string literal: 'x'
	tBlob               // a blob literal: x'00ff'
	tNumber             // a numeric literal
	tParam              // a bind parameter: ?, ?1, :name, @name, $name
	tOp                 // punctuation and operators, including ; ( ) , . *
)

// token is one lexical unit. Text is the raw source text; Value is the
// unquoted text for quoted identifiers and strings, and the upper-cased
// text for words (so keyword checks need no further folding).
type token struct {
	Kind  kind
	Text  string
	Value string
	Off   int // byte offset of the first byte in the statement
}

// lexError is a lexical problem at a byte offset.
type lexError struct {
	Off int
	Msg string
}

func (e *lexError) Error() string { return fmt.Sprintf("offset %d: %s", e.Off, e.Msg) }

// lex splits sql into tokens the way SQLite's tokenizer does, dropping
// whitespace and comments. Tokenising first is what lets the guard ignore
// keywords that only appear inside string literals, quoted identifiers or
// comments, while still seeing every keyword SQLite itself will see.
// Anything SQLite would reject as unrecognised, and comments or quotes
// left open, are reported as errors rather than guessed at.
func lex(sql string) ([]token, *lexError) {
	var toks []token
	i := 0
	n := len(sql)
	for i < n {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < n && sql[i+1] == '-':
			for i < n && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return nil, &lexError{i, "comment /* is never closed with */"}
			}
			i += 2 + end + 2
		case c == '\'':
			v, j, ok := quoted(sql, i, '\'')
			if !ok {
				return nil, &lexError{i, "string literal is never closed with '"}
			}
			toks = append(toks, token{tString, sql[i:j], v, i})
			i = j
		case c == '"' || c == '`':
			v, j, ok := quoted(sql, i, c)
			if !ok {
				return nil, &lexError{i, fmt.Sprintf("quoted identifier is never closed with %c", c)}
			}
			toks = append(toks, token{tQIdent, sql[i:j], v, i})
			i = j
		case c == '[':
			end := strings.IndexByte(sql[i+1:], ']')
			if end < 0 {
				return nil, &lexError{i, "quoted identifier [ is never closed with ]"}
			}
			j := i + 1 + end + 1
			toks = append(toks, token{tQIdent, sql[i:j], sql[i+1 : j-1], i})
			i = j
		case (c == 'x' || c == 'X') && i+1 < n && sql[i+1] == '\'':
			end := strings.IndexByte(sql[i+2:], '\'')
			if end < 0 {
				return nil, &lexError{i, "blob literal is never closed with '"}
			}
			j := i + 2 + end + 1
			toks = append(toks, token{tBlob, sql[i:j], sql[i+2 : j-1], i})
			i = j
		case isDigit(c) || (c == '.' && i+1 < n && isDigit(sql[i+1])):
			j := i
			hex := c == '0' && i+1 < n && (sql[i+1] == 'x' || sql[i+1] == 'X')
			for j < n {
				d := sql[j]
				if (d == 'e' || d == 'E') && !hex && j+1 < n && (sql[j+1] == '+' || sql[j+1] == '-') {
					j += 2
					continue
				}
				if isDigit(d) || isLetter(d) || d == '_' || d == '.' {
					j++
					continue
				}
				break
			}
			toks = append(toks, token{tNumber, sql[i:j], sql[i:j], i})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentPart(sql[j]) {
				j++
			}
			toks = append(toks, token{tWord, sql[i:j], strings.ToUpper(sql[i:j]), i})
			i = j
		case c == '?':
			j := i + 1
			for j < n && isDigit(sql[j]) {
				j++
			}
			toks = append(toks, token{tParam, sql[i:j], sql[i:j], i})
			i = j
		case c == ':' || c == '@' || c == '$':
			j := i + 1
			for j < n && isIdentPart(sql[j]) {
				j++
			}
			if j == i+1 {
				return nil, &lexError{i, fmt.Sprintf("%c must be followed by a parameter name", c)}
			}
			toks = append(toks, token{tParam, sql[i:j], sql[i+1 : j], i})
			i = j
		default:
			op := operator(sql[i:])
			if op == "" {
				return nil, &lexError{i, fmt.Sprintf("unexpected character %q", firstRune(sql[i:]))}
			}
			toks = append(toks, token{tOp, op, op, i})
			i += len(op)
		}
	}
	return toks, nil
}

// quoted reads a literal delimited by q starting at sql[i], where a doubled
// delimiter stands for one; it returns the unescaped value and the offset
// just past the closing delimiter.
func quoted(sql string, i int, q byte) (string, int, bool) {
	var b strings.Builder
	j := i + 1
	for j < len(sql) {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				b.WriteByte(q)
				j += 2
				continue
			}
			return b.String(), j + 1, true
		}
		b.WriteByte(sql[j])
		j++
	}
	return "", 0, false
}

// operators SQLite recognises, longest first so that "->>" wins over "->".
var operators = []string{
	"->>", "||", "<>", "!=", "==", "<=", ">=", "<<", ">>", "->",
	"(", ")", ",", ";", ".", "+", "-", "*", "/", "%", "<", ">", "=", "&", "|", "~",
}

func operator(s string) string {
	for _, op := range operators {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// SQLite treats every byte ≥ 0x80 as an identifier character, so that
// non-ASCII column names need no quoting.
func isIdentStart(c byte) bool { return isLetter(c) || c == '_' || c >= 0x80 }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) || c == '$' }

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}
