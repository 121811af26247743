package expr

import "strings"

// needsTokens reports whether text could hold a token that precheck
// reports or rewriteCalls renames: a `{`, a `|`, an `=` that the lexer
// reads on its own (not part of ==, !=, <=, >=, &=, *=, =&, =*), or one of
// the callWords. Only such expressions are
// lexed before parsing; every other one is lexed once, by the parser. The
// test is on bytes, so it also says yes for those characters inside
// strings and comments, which costs a lexing pass and nothing else;
// FuzzLexOnce checks that it never says no where the tokens matter.
func needsTokens(text string) bool {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{', '|':
			return true
		case '&', '!', '=', '*', '<', '>':
			// the lexer's rule: one of these and then one of "&=*" is
			// one operator (==, !=, <=, &&, **, &=…)
			if i+1 < len(text) && strings.IndexByte("&=*", text[i+1]) >= 0 {
				i++
				continue
			}
			if c == '=' {
				return true
			}
		}
	}
	for w := range callWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}
