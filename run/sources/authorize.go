package sources

import (
	"strings"

	sqlite "modernc.org/sqlite"
)

// readPragmas are the pragmas that may run as table-valued functions
// (SELECT * FROM pragma_table_info('t')): they only describe the schema.
var readPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true,
	"index_info": true, "index_xinfo": true, "foreign_key_list": true,
}

// authorize is SQLite's authorizer for a source connection: the second
// wall after the SQL guard. It allows reading and nothing else, refuses
// functions the guard refuses, and records every column read while a
// statement is prepared so that masking knows whether a masked column is
// involved, however the SQL names it.
func (s *source) authorize(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	case sqlite.AuthRead:
		if s.recording {
			s.reads = append(s.reads, read{arg1, arg2})
		}
		return sqlite.AuthorizerOK
	case sqlite.AuthFunction:
		switch strings.ToLower(arg2) {
		case "load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "random", "randomblob":
			return sqlite.AuthorizerDeny
		}
		return sqlite.AuthorizerOK
	case sqlite.AuthPragma:
		if readPragmas[strings.ToLower(arg1)] {
			return sqlite.AuthorizerOK
		}
	}
	return sqlite.AuthorizerDeny
}
