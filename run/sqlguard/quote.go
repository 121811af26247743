package sqlguard

import "strings"

// QuoteIdent quotes s as a SQLite identifier ("…", with every " inside
// doubled), so that any table or column name, even one that is a keyword
// or holds a quote, names exactly itself when pasted into SQL text.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
