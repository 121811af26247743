package expr

import "sort"

// kind is what the checker knows statically about a value.
type kind uint8

const (
	kAny kind = iota // unknown until run time
	kBool
	kNumber
	kString
	kList
	kMap
	kNil
)

func (k kind) String() string {
	return [...]string{"any value", "a boolean", "a number", "a string", "a list", "a map", "nil"}[k]
}

// mask is a set of kinds a function parameter accepts.
type mask uint8

const (
	mBool mask = 1 << (iota + 1)
	mNum
	mStr
	mList
	mMap
	mNil
	mAny mask = 0xff
)

func (m mask) has(k kind) bool { return k == kAny || m&(1<<k) != 0 }

// funcSpec describes one whitelisted function.
type funcSpec struct {
	min, max int    // argument count; max < 0 means any number
	metric   bool   // only in metric expressions
	result   kind   // statically known result
	params   []mask // accepted kinds per argument; the last repeats
	usage    string // shown in arity errors
}

// funcs is the whitelist. Nothing else can be called: there is no I/O, no
// reflection and no access to methods of Go values.
var funcs = map[string]funcSpec{
	"len":        {1, 1, false, kNumber, []mask{mStr | mList | mMap | mNil}, "len(x)"},
	"upper":      {1, 1, false, kString, []mask{mStr}, "upper(s)"},
	"lower":      {1, 1, false, kString, []mask{mStr}, "lower(s)"},
	"trim":       {1, 2, false, kString, []mask{mStr}, "trim(s) or trim(s, chars)"},
	"contains":   {2, 2, false, kBool, []mask{mStr | mList | mMap, mAny}, "contains(s, part) or contains(list, item)"},
	"startsWith": {2, 2, false, kBool, []mask{mStr}, "startsWith(s, prefix)"},
	"endsWith":   {2, 2, false, kBool, []mask{mStr}, "endsWith(s, suffix)"},
	"keys":       {1, 1, false, kList, []mask{mMap}, "keys(map)"},
	"values":     {1, 1, false, kList, []mask{mMap}, "values(map)"},
	"int":        {1, 1, false, kNumber, []mask{mNum | mStr}, "int(x)"},
	"float":      {1, 1, false, kNumber, []mask{mNum | mStr}, "float(x)"},
	"string":     {1, 1, false, kString, []mask{mAny}, "string(x)"},
	"abs":        {1, 1, false, kNumber, []mask{mNum}, "abs(x)"},
	"round":      {1, 2, false, kNumber, []mask{mNum}, "round(x) or round(x, decimals)"},
	"min":        {1, -1, false, kNumber, []mask{mNum | mList}, "min(list) or min(a, b, …)"},
	"max":        {1, -1, false, kNumber, []mask{mNum | mList}, "max(list) or max(a, b, …)"},
	"sum":        {1, 1, false, kNumber, []mask{mList}, "sum(list)"},
	"avg":        {1, 1, false, kNumber, []mask{mList}, "avg(list)"},
	"count":      {1, 1, false, kNumber, []mask{mList}, "count(list)"},
	"col":        {2, 2, true, kList, []mask{mMap, mStr}, "col(nodes.<id>, 'column')"},
	"cell":       {3, 3, true, kAny, []mask{mMap, mNum, mStr}, "cell(nodes.<id>, row, 'column')"},
	"rows":       {1, 1, true, kNumber, []mask{mMap}, "rows(nodes.<id>)"},
}

// aliases maps names people bring from other languages to our function.
var aliases = map[string]string{
	"length": "len", "size": "len", "uppercase": "upper", "toUpper": "upper", "lowercase": "lower",
	"toLower": "lower", "strip": "trim", "includes": "contains", "has": "contains", "hasPrefix": "startsWith",
	"hasSuffix": "endsWith", "mean": "avg", "average": "avg", "str": "string", "toString": "string",
	"number": "float", "parseInt": "int", "parseFloat": "float", "column": "col", "row": "cell",
}

// Functions returns the whitelisted function names, sorted, for the
// documentation. col, cell and rows exist only in metric expressions.
func Functions() []string {
	out := make([]string, 0, len(funcs))
	for name := range funcs {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// funcNames lists the functions visible in ctx.
func funcNames(ctx Context) []string {
	var out []string
	for _, name := range Functions() {
		if !funcs[name].metric || ctx == Metric {
			out = append(out, name)
		}
	}
	return out
}
