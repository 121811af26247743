package tmpl

// Diagnostic codes reported by Parse and Check. They are stable.
//
//	code                  meaning
//	E-TMPL-UNTERMINATED   a `{{` (or a quoted string inside one) is never closed
//	E-TMPL-EMPTY          `{{ }}` holds nothing
//	E-TMPL-SYNTAX         the inside of `{{ … }}` is not a path with filters (e.g. an expression)
//	E-TMPL-FILTER         an unknown filter (with a did-you-mean)
//	E-TMPL-FILTER-ARGS    a filter got the wrong arguments (join takes one optional text, default one literal)
//	E-TMPL-NAME           an unknown root name (not input, nodes, vars, item or index)
//	E-TMPL-INPUT          input.<name> is not a declared input
//	E-TMPL-NODE           nodes.<id> is not a node that has finished before this point
//	E-TMPL-FIELD          nodes.<id>.<field> is not a field of that node's output
//	E-TMPL-VAR            vars.<name> is not assigned upstream
//	E-TMPL-LOOP           item or index used outside a loop body
//
// The name codes are produced by expr.CheckPath, so templates and
// expressions follow the same scope rules.
const (
	CodeUnterminated = "E-TMPL-UNTERMINATED"
	CodeEmpty        = "E-TMPL-EMPTY"
	CodeSyntax       = "E-TMPL-SYNTAX"
	CodeFilter       = "E-TMPL-FILTER"
	CodeFilterArgs   = "E-TMPL-FILTER-ARGS"
	CodeName         = "E-TMPL-NAME"
	CodeInput        = "E-TMPL-INPUT"
	CodeNode         = "E-TMPL-NODE"
	CodeField        = "E-TMPL-FIELD"
	CodeVar          = "E-TMPL-VAR"
	CodeLoop         = "E-TMPL-LOOP"
)
