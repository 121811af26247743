package compile

import (
	"strings"

	"github.com/agentlab/agentlab/compile/form"
)

// formFieldSchema is the long form of one field of a human node's form;
// the short form is the type alone (`ticket: string`).
var formFieldSchema = newSchema("form field",
	fStr("type"),
	fBool("required"),
	&field{name: "enum", kind: kAny},
	fStr("description"),
)

// formTypeAliases are type names people write for the four form types,
// so that the fix can name the right one.
var formTypeAliases = map[string]string{
	"str": form.String, "text": form.String,
	"int": form.Integer, "float": form.Number, "double": form.Number, "decimal": form.Number,
	"bool": form.Boolean,
}

// checkForm checks a human node's `form:` and replaces its decoded value
// by the plan form (package compile/form): every field in the long form,
// with its type spelt out. A field with errors keeps its name (as a
// string field), so that a reference to it is not reported a second
// time; a flow with errors never becomes a plan.
func (f *flow) checkForm(n *nodeInfo) {
	fv := n.v.Get("form")
	if fv.IsNull() {
		delete(n.fields, "form")
		return
	}
	if fv.Kind != vMap {
		f.dec.errf(fv, "E-SCHEMA-TYPE", "write `form:` as a mapping of field name to type, e.g. {ticket: {type: string, required: true}, risk: {type: string, enum: [low, high]}}",
			"the form of human node %q must be a mapping of fields, found %s", n.id, fv.kindName())
		delete(n.fields, "form")
		return
	}
	out := map[string]any{}
	for i, k := range fv.Keys() {
		path := "form." + k.Str
		if !form.NameRe.MatchString(k.Str) {
			f.dec.errf(k, "E-SCHEMA-PATTERN", "name form fields with letters, digits and _, starting with a letter or _ (the name follows --field and nodes."+n.id+".form.)",
				"%q is not a valid form field name", k.Str)
			continue
		}
		val := fv.Vals()[i]
		decl := map[string]any{}
		var typeV *V
		switch {
		case val.IsNull():
			f.dec.errf(k, "E-SCHEMA-FORM-TYPE", "write a type: `"+k.Str+": string` (or number, integer, boolean)",
				"form field %q has no type", k.Str)
			out[k.Str] = map[string]any{"type": form.String}
			continue
		case val.Kind == vScalar:
			typeV = val
			decl["type"] = val.Str
		case val.Kind == vMap:
			m := f.dec.object(val, formFieldSchema, path)
			if m == nil {
				out[k.Str] = map[string]any{"type": form.String}
				continue
			}
			decl = m
			typeV = val.Get("type")
			if typeV == nil {
				decl["type"] = form.String
			}
		default:
			f.dec.errf(val, "E-SCHEMA-TYPE", "write the field as a type (`"+k.Str+": string`) or a mapping ({type: string, required: true})",
				"form field %q must be a type name or a mapping, found %s", k.Str, val.kindName())
			out[k.Str] = map[string]any{"type": form.String}
			continue
		}
		t, _ := decl["type"].(string)
		if typeV != nil && !form.ValidType(t) {
			fix := "use one of: " + strings.Join(form.Types, ", ")
			hint := didYouMean(t, form.Types)
			if a, ok := formTypeAliases[strings.ToLower(t)]; ok {
				hint, fix = "did you mean \""+a+"\"? ", "write `"+a+"`; a form field is "+strings.Join(form.Types, ", ")
			}
			f.dec.errf(typeV, "E-SCHEMA-FORM-TYPE", fix,
				"form field %q has type %q; %sa form field is string, number, integer or boolean", k.Str, t, hint)
			out[k.Str] = map[string]any{"type": form.String}
			continue
		}
		if e, ok := decl["enum"]; ok {
			ev := val.Get("enum")
			l, isList := e.([]any)
			if !isList {
				f.dec.errf(ev, "E-SCHEMA-TYPE", "write `enum:` as a list of the allowed values, e.g. [low, high]",
					"the enum of form field %q must be a list, found %s", k.Str, ev.kindName())
				out[k.Str] = map[string]any{"type": form.String}
				continue
			}
			if i, msg := form.CheckEnum(t, l); msg != "" {
				at := ev
				if i >= 0 && i < len(ev.Items()) {
					at = ev.Items()[i]
				}
				fix := "list values of the field's type (" + t + "), each once"
				if t == form.String && i >= 0 {
					fix = "quote the value to make it text, e.g. \"" + ev.Items()[i].Str + "\""
				}
				if i < 0 {
					fix = "list the allowed values under `enum:`, or remove it"
					if t == form.Boolean {
						fix = "remove `enum:`, or make the field `type: string` with the answers as its enum"
					}
				}
				f.dec.errf(at, "E-SCHEMA-FORM-ENUM", fix, "form field %q: %s", k.Str, msg)
				out[k.Str] = map[string]any{"type": form.String}
				continue
			}
		}
		if r, _ := decl["required"].(bool); !r {
			delete(decl, "required")
		}
		out[k.Str] = normValue(decl)
	}
	n.fields["form"] = out
}
