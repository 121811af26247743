package suite

// Diagnostic codes of suite files (documented in docs/evals.md).
//
//	code               meaning
//	E-EVAL-READ        the suite file cannot be read
//	E-EVAL-YAML        the file is not valid YAML
//	E-EVAL-KEY         an unknown key (with a did-you-mean)
//	E-EVAL-DUP         a key, question id or variant name given twice
//	E-EVAL-REQUIRED    a required key is missing
//	E-EVAL-TYPE        a value of the wrong kind
//	E-EVAL-VERSION     eval: is not 1
//	E-EVAL-ID          an id or name that is not a slug
//	E-EVAL-EMPTY       a suite without questions
//	E-EVAL-EXPECT      expect: has no expectation kind, or more than one
//	E-EVAL-LITERAL     an expected number typed by hand
//	E-EVAL-SQL         the expectation's SQL is refused by the SQL guard
//	E-EVAL-SOURCE      the SQL names no source when the flow has several, or an unknown one
//	E-EVAL-MASKED      the SQL reads a column the source masks
//	E-EVAL-FLOW        the flow under test cannot be read or compiled
//	E-EVAL-PIN         pin: is malformed, or the flow's plan hash differs
//	E-EVAL-INPUT       an input the flow does not declare, or a required one missing
//	E-EVAL-CARD        card: malformed or not pinned by the flow, or a metric the card lacks
//	E-EVAL-VARIANT     a variant with a bad provider, repeats or price
const (
	CodeRead     = "E-EVAL-READ"
	CodeYAML     = "E-EVAL-YAML"
	CodeKey      = "E-EVAL-KEY"
	CodeDup      = "E-EVAL-DUP"
	CodeRequired = "E-EVAL-REQUIRED"
	CodeType     = "E-EVAL-TYPE"
	CodeVersion  = "E-EVAL-VERSION"
	CodeID       = "E-EVAL-ID"
	CodeEmpty    = "E-EVAL-EMPTY"
	CodeExpect   = "E-EVAL-EXPECT"
	CodeLiteral  = "E-EVAL-LITERAL"
	CodeSQL      = "E-EVAL-SQL"
	CodeSource   = "E-EVAL-SOURCE"
	CodeMasked   = "E-EVAL-MASKED"
	CodeFlow     = "E-EVAL-FLOW"
	CodePin      = "E-EVAL-PIN"
	CodeInput    = "E-EVAL-INPUT"
	CodeCard     = "E-EVAL-CARD"
	CodeVariant  = "E-EVAL-VARIANT"
)

// Codes lists every code, for documentation checks.
var Codes = []string{CodeRead, CodeYAML, CodeKey, CodeDup, CodeRequired, CodeType, CodeVersion, CodeID,
	CodeEmpty, CodeExpect, CodeLiteral, CodeSQL, CodeSource, CodeMasked, CodeFlow, CodePin, CodeInput,
	CodeCard, CodeVariant}
