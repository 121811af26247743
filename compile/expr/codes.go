package expr

// Diagnostic codes reported by Check and by Compile's error. They are
// stable: documentation, tests and users' suppressions refer to them.
//
//	code                    meaning
//	E-EXPR-EMPTY            the expression is empty (or only `{{ }}`)
//	E-EXPR-SYNTAX           the parser rejected the expression at this offset
//	E-EXPR-PIPE             a template filter pipe `x | f` was used; call f(x)
//	E-EXPR-SET              a set literal {'a','b'} was written; use a list ['a','b']
//	E-EXPR-ASSIGN           `=` was written where the comparison `==` was meant
//	E-EXPR-BRACES           `{{ … }}` appears inside an expression (not around all of it)
//	H-EXPR-BRACES           the whole expression is wrapped in `{{ }}`; it is read as the inner expression
//	E-EXPR-TEMPLATE-STRING  a string literal contains `{{ … }}`, which is never rendered
//	E-EXPR-FUNC             the function is not in the whitelist (with a did-you-mean)
//	E-EXPR-METRIC-FUNC      col/cell/rows used outside a metric expression
//	E-EXPR-ARGS             wrong number of arguments for a function
//	E-EXPR-METHOD           a method call on a value (`x.upper()`); use the function form
//	E-EXPR-UNSUPPORTED      syntax outside the whitelist (let, closures, if/else, matches, ranges, …)
//	E-EXPR-NAME             an unknown root name (not input, nodes, vars, item, index or a metric)
//	E-EXPR-INPUT            input.<name> is not a declared input
//	E-EXPR-NODE             nodes.<id> is not a node that has finished before this point
//	E-EXPR-FIELD            nodes.<id>.<field> is not a field of that node's output
//	E-EXPR-VAR              vars.<name> is not assigned upstream
//	E-EXPR-METRIC           a bare name in a metric expression is not a known metric
//	E-EXPR-LOOP             item or index used outside a loop body
//	E-EXPR-TYPE             a value of the wrong type (condition not boolean, over not a list, …)
//	E-EXPR-SNAPSHOT         col/cell/rows need nodes.<id> and a quoted column name
//	E-EXPR-UNTRACED         a metric reads nodes.<id>.rows directly, bypassing cell tracing
const (
	CodeEmpty          = "E-EXPR-EMPTY"
	CodeSyntax         = "E-EXPR-SYNTAX"
	CodePipe           = "E-EXPR-PIPE"
	CodeSet            = "E-EXPR-SET"
	CodeAssign         = "E-EXPR-ASSIGN"
	CodeBraces         = "E-EXPR-BRACES"
	CodeBracesHint     = "H-EXPR-BRACES"
	CodeTemplateString = "E-EXPR-TEMPLATE-STRING"
	CodeFunc           = "E-EXPR-FUNC"
	CodeMetricFunc     = "E-EXPR-METRIC-FUNC"
	CodeArgs           = "E-EXPR-ARGS"
	CodeMethod         = "E-EXPR-METHOD"
	CodeUnsupported    = "E-EXPR-UNSUPPORTED"
	CodeName           = "E-EXPR-NAME"
	CodeInput          = "E-EXPR-INPUT"
	CodeNode           = "E-EXPR-NODE"
	CodeField          = "E-EXPR-FIELD"
	CodeVar            = "E-EXPR-VAR"
	CodeMetric         = "E-EXPR-METRIC"
	CodeLoop           = "E-EXPR-LOOP"
	CodeType           = "E-EXPR-TYPE"
	CodeSnapshot       = "E-EXPR-SNAPSHOT"
	CodeUntraced       = "E-EXPR-UNTRACED"
)
