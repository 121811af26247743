package compile

import (
	"math"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/diag"
)

// strRef is an expression or template string found while decoding; it is
// checked once the graph is known, with the scope of the node it belongs to.
type strRef struct {
	src    *source
	v      *V
	isExpr bool
	ctx    expr.Context
	node   int             // owning node, -1 for none
	field  string          // dotted path, for messages
	metric map[string]bool // metric names visible to a metric expression
}

// refUse is a field that names another node (merge inputs, contract
// report_from, validate target, …).
type refUse struct {
	v     *V
	node  int
	field string
}

// decoder checks mapping values against the schema tables and converts them
// into plain JSON-like values (string, int64, float64, bool, []any,
// map[string]any). It collects every finding.
type decoder struct {
	src  *source
	l    *diag.List
	strs []strRef
	refs []refUse
	node int
	// metricNames is set while decoding a metric set.
	metricNames map[string]bool
}

func (d *decoder) errf(v *V, code, fix, format string, args ...any) {
	d.l.Errorf(d.src.file, v.Pos(), code, fix, format, args...)
}

// object decodes a mapping against s. Fields of kind kBody are left to the
// caller. Absent optional fields get their default.
func (d *decoder) object(v *V, s *schema, path string) map[string]any {
	out := map[string]any{}
	if v == nil || v.Kind != vMap {
		d.errf(v, "E-SCHEMA-TYPE", "write "+s.what+" as a mapping of key: value",
			"%s must be a mapping, found %s", describe(s.what, path), v.kindName())
		return nil
	}
	for i, k := range v.Keys() {
		f := s.byName[k.Str]
		if f == nil && s.allowX && strings.HasPrefix(k.Str, "x-") {
			continue
		}
		if f == nil {
			d.errf(k, "E-SCHEMA-UNKNOWN-KEY", "allowed keys: "+strings.Join(s.names, ", "),
				"unknown key %q in %s%s", k.Str, s.what, suffix(didYouMean(k.Str, s.names)))
			continue
		}
		if f.kind == kBody {
			continue
		}
		val := v.Vals()[i]
		if val.IsNull() {
			continue
		}
		if x, ok := d.value(val, f, join(path, f.name)); ok {
			out[f.name] = x
		}
	}
	for _, f := range s.fields {
		if _, ok := out[f.name]; ok || f.kind == kBody {
			continue
		}
		if v.Get(f.name).IsNull() {
			if f.req {
				at := v
				if k := v.KeyOf(f.name); k != nil {
					at = k
				}
				d.errf(at, "E-SCHEMA-REQUIRED", "add `"+f.name+":` to the "+s.what,
					"%s is missing the required key %q", describe(s.what, path), f.name)
				continue
			}
			if f.def != nil {
				out[f.name] = f.def
			}
		}
	}
	return out
}

// describe names a mapping for a message.
func describe(what, path string) string {
	if path == "" {
		return what
	}
	return what + " \"" + path + "\""
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	if name == "" {
		return path
	}
	return path + "." + name
}

// value decodes one value against f.
func (d *decoder) value(v *V, f *field, path string) (any, bool) {
	typeErr := func(want string) (any, bool) {
		d.errf(v, "E-SCHEMA-TYPE", "write "+want+" here",
			"%q must be %s, found %s", path, want, v.kindName())
		return nil, false
	}
	switch f.kind {
	case kStr, kExpr, kTmpl, kNodeRef, kVar:
		if v.Kind != vScalar || v.IsNull() {
			return typeErr("a string")
		}
		if f.pattern != nil && !matches(f.pattern, v.Str) {
			d.errf(v, "E-SCHEMA-PATTERN", "write "+f.patDesc,
				"%q is not a valid value for %q: expected %s", v.Str, path, f.patDesc)
			return nil, false
		}
		switch f.kind {
		case kExpr:
			d.strs = append(d.strs, strRef{src: d.src, v: v, isExpr: true, ctx: f.ctx, node: d.node, field: path, metric: d.metricNames})
		case kTmpl:
			d.strs = append(d.strs, strRef{src: d.src, v: v, node: d.node, field: path})
		case kNodeRef:
			d.refs = append(d.refs, refUse{v: v, node: d.node, field: path})
		}
		return v.Str, true
	case kInt:
		if v.Kind != vScalar || v.Tag != tagInt {
			return typeErr("an integer")
		}
		n, err := strconv.ParseInt(v.Str, 0, 64)
		if err != nil {
			return typeErr("an integer that fits in 64 bits")
		}
		if !d.inRange(v, f, path, float64(n)) {
			return nil, false
		}
		return n, true
	case kNum:
		if v.Kind != vScalar || (v.Tag != tagInt && v.Tag != tagFloat) {
			return typeErr("a number")
		}
		x, ok := parseNumber(v)
		if !ok {
			return typeErr("a finite number")
		}
		if !d.inRange(v, f, path, x) {
			return nil, false
		}
		return x, true
	case kBool:
		if v.Kind != vScalar || v.Tag != tagBool {
			return typeErr("true or false")
		}
		b, _ := strconv.ParseBool(strings.ToLower(v.Str))
		return b, true
	case kEnum:
		if v.Kind != vScalar || v.IsNull() {
			return typeErr("one of " + strings.Join(f.enum, ", "))
		}
		for i, e := range f.enum {
			if v.Str == e {
				if i < len(f.enumAny) {
					return f.enumAny[i], true // no allocation per value
				}
				return e, true
			}
		}
		d.errf(v, "E-SCHEMA-ENUM", "use one of: "+strings.Join(f.enum, ", "),
			"%q is not a valid value for %q; %sexpected one of %s", v.Str, path, didYouMean(v.Str, f.enum), strings.Join(f.enum, ", "))
		return nil, false
	case kStrList, kNodeRefs:
		if v.Kind != vSeq {
			return typeErr("a list of strings")
		}
		out := make([]any, 0, len(v.Items()))
		for i, e := range v.Items() {
			if e.Kind != vScalar || e.IsNull() {
				d.errf(e, "E-SCHEMA-TYPE", "write a string here", "%s[%d] must be a string, found %s", path, i, e.kindName())
				continue
			}
			if f.kind == kNodeRefs {
				d.refs = append(d.refs, refUse{v: e, node: d.node, field: path})
			}
			out = append(out, e.Str)
		}
		return out, true
	case kTmplList:
		// One template or a list of them, each rendered when the node runs
		// (human assignees: "{{ input.owner }}"). A single string becomes a
		// one-element list, so the plan has one shape and a flow that
		// writes a list keeps its plan hash.
		items := []*V{v}
		if v.Kind == vSeq {
			items = v.Items()
		} else if v.Kind != vScalar || v.IsNull() {
			return typeErr("a string or a list of strings")
		}
		out := make([]any, 0, len(items))
		for i, e := range items {
			if e.Kind != vScalar || e.IsNull() {
				d.errf(e, "E-SCHEMA-TYPE", "write a string here", "%s[%d] must be a string, found %s", path, i, e.kindName())
				continue
			}
			d.strs = append(d.strs, strRef{src: d.src, v: e, node: d.node, field: path})
			out = append(out, e.Str)
		}
		return out, true
	case kAny:
		return d.plain(v, path, false), true
	case kTmplAny:
		return d.plain(v, path, true), true
	case kObj:
		m := d.object(v, f.sub, path)
		return m, m != nil
	case kObjList:
		if v.Kind != vSeq {
			return typeErr("a list of " + f.sub.what + " mappings")
		}
		out := make([]any, 0, len(v.Items()))
		for i, e := range v.Items() {
			if m := d.object(e, f.sub, path+"["+strconv.Itoa(i)+"]"); m != nil {
				out = append(out, m)
			}
		}
		return out, true
	case kMapOf:
		if v.Kind != vMap {
			return typeErr("a mapping of name: value")
		}
		out := make(map[string]any, len(v.Keys()))
		for i, k := range v.Keys() {
			if !isIdent(k.Str) {
				d.errf(k, "E-SCHEMA-PATTERN", "use letters, digits and _ (starting with a letter or _)",
					"%q is not a valid name in %q", k.Str, path)
				continue
			}
			if v.Vals()[i].IsNull() && f.elem.kind == kObj {
				out[k.Str] = d.object(&V{Kind: vMap, Line: k.Line, Col: k.Col}, f.elem.sub, join(path, k.Str))
				continue
			}
			if x, ok := d.value(v.Vals()[i], f.elem, join(path, k.Str)); ok {
				out[k.Str] = x
			}
		}
		return out, true
	}
	return nil, false
}

func (d *decoder) inRange(v *V, f *field, path string, x float64) bool {
	if f.min != nil && x < *f.min {
		d.errf(v, "E-SCHEMA-RANGE", "use a value of at least "+fmtNum(*f.min),
			"%q is %s, below the minimum %s", path, v.Str, fmtNum(*f.min))
		return false
	}
	if f.max != nil && x > *f.max {
		d.errf(v, "E-SCHEMA-RANGE", "use a value of at most "+fmtNum(*f.max),
			"%q is %s, above the maximum %s", path, v.Str, fmtNum(*f.max))
		return false
	}
	return true
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// parseNumber reads an !!int or !!float scalar; infinities and NaN are
// refused because JSON cannot carry them.
func parseNumber(v *V) (float64, bool) {
	s := strings.ReplaceAll(v.Str, "_", "")
	if v.Tag == tagInt {
		if n, err := strconv.ParseInt(v.Str, 0, 64); err == nil {
			return float64(n), true
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	return x, true
}

// plain converts any YAML value into a JSON value by its resolved tags.
// With tmpl set, every string leaf is recorded as a template.
func (d *decoder) plain(v *V, path string, tmpl bool) any {
	switch v.Kind {
	case vMap:
		m := make(map[string]any, len(v.Keys()))
		for i, k := range v.Keys() {
			m[k.Str] = d.plain(v.Vals()[i], join(path, k.Str), tmpl)
		}
		return m
	case vSeq:
		l := make([]any, len(v.Items()))
		for i, e := range v.Items() {
			l[i] = d.plain(e, path+"["+strconv.Itoa(i)+"]", tmpl)
		}
		return l
	}
	switch v.Tag {
	case tagNull:
		return nil
	case tagBool:
		b, _ := strconv.ParseBool(strings.ToLower(v.Str))
		return b
	case tagInt:
		if n, err := strconv.ParseInt(v.Str, 0, 64); err == nil {
			return n
		}
		fallthrough
	case tagFloat:
		if x, ok := parseNumber(v); ok {
			return x
		}
		d.errf(v, "E-SCHEMA-TYPE", "quote the value to keep it as text, or write a finite number",
			"%q holds %s, which JSON cannot represent", path, v.Str)
		return nil
	}
	if tmpl {
		d.strs = append(d.strs, strRef{src: d.src, v: v, node: d.node, field: path})
	}
	return v.Str
}
