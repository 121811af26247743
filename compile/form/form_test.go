package form

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// spec is a plan form with one field of every kind.
var spec = map[string]any{
	"ticket": map[string]any{"type": "string", "required": true, "description": "the change ticket"},
	"risk":   map[string]any{"type": "string", "enum": []any{"low", "high"}},
	"amount": map[string]any{"type": "number"},
	"count":  map[string]any{"type": "integer", "enum": []any{1.0, 2.0, 3.0}},
	"urgent": map[string]any{"type": "boolean"},
	"note":   "string",
}

func mustForm(t testing.TB) Form {
	t.Helper()
	f, err := FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFromSpec(t *testing.T) {
	f := mustForm(t)
	if got := strings.Join(f.Names(), ","); got != "amount,count,note,risk,ticket,urgent" {
		t.Errorf("names = %s, want them sorted", got)
	}
	if r := f.Required(); len(r) != 1 || r[0].Name != "ticket" || r[0].Description != "the change ticket" {
		t.Errorf("required = %+v", r)
	}
	if n, _ := f.Get("note"); n.Type != String {
		t.Errorf("the shorthand gave %+v", n)
	}
	if f, err := FromSpec(nil); f != nil || err != nil {
		t.Errorf("no form: %v, %v", f, err)
	}
	bad := []struct {
		name string
		spec any
		want string
	}{
		{"not a mapping", []any{"a"}, "must be a mapping"},
		{"bad name", map[string]any{"a-b": "string"}, "a name is letters"},
		{"unknown type", map[string]any{"a": "text"}, `has type "text"`},
		{"required not bool", map[string]any{"a": map[string]any{"required": "yes"}}, "required must be true or false"},
		{"enum not a list", map[string]any{"a": map[string]any{"enum": "x"}}, "enum must be a list"},
		{"enum of wrong type", map[string]any{"a": map[string]any{"type": "number", "enum": []any{"x"}}}, "is not a number"},
		{"declaration of wrong shape", map[string]any{"a": 3.0}, "must be a type name or a mapping"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromSpec(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestCheckEnum(t *testing.T) {
	tests := []struct {
		typ  string
		enum []any
		at   int
		want string // "" for a good enum
	}{
		{String, []any{"a", "b"}, -1, ""},
		{String, nil, -1, ""},
		{Number, []any{1.5, int64(2)}, -1, ""},
		{Integer, []any{1.0, int64(2)}, -1, ""},
		{String, []any{}, -1, "enum is empty"},
		{String, []any{"a", 2.0}, 1, "is not a string"},
		{Integer, []any{1.0, 1.5}, 1, "is not an integer"},
		{Integer, []any{float64(MaxInteger) * 2}, 0, "is not an integer"},
		{Number, []any{1.0, int64(1)}, 1, "listed twice"},
		{String, []any{"a", "a"}, 1, "listed twice"},
		{Boolean, []any{true}, -1, "takes no enum"},
	}
	for _, tc := range tests {
		at, msg := CheckEnum(tc.typ, tc.enum)
		if at != tc.at || (tc.want == "") != (msg == "") || !strings.Contains(msg, tc.want) {
			t.Errorf("CheckEnum(%s, %v) = %d, %q; want %d, %q", tc.typ, tc.enum, at, msg, tc.at, tc.want)
		}
	}
}

func TestValue(t *testing.T) {
	f := mustForm(t)
	tests := []struct {
		field string
		in    any
		want  any
		err   string
	}{
		{"ticket", "OPS-12", "OPS-12", ""},
		{"ticket", "  spaced  ", "  spaced  ", ""},
		{"ticket", 12.0, nil, "must be a string, got 12"},
		{"ticket", "…", nil, "still holds the placeholder"},
		{"ticket", strings.Repeat("x", MaxText+1), nil, "at most"},
		{"ticket", "\xff", nil, "UTF-8"},
		{"risk", "low", "low", ""},
		{"risk", "lwo", nil, `did you mean "low"?`},
		{"risk", "medium", nil, "must be one of low, high"},
		{"amount", "12.5", 12.5, ""},
		{"amount", " 1e3 ", 1000.0, ""},
		{"amount", 7.0, 7.0, ""},
		{"amount", "lots", nil, "must be a number"},
		{"amount", "NaN", nil, "must be a number"},
		{"amount", "Inf", nil, "must be a number"},
		{"amount", "0x1p3", nil, "must be a number"},
		{"amount", true, nil, "must be a number"},
		{"count", "2", 2.0, ""},
		{"count", 3.0, 3.0, ""},
		{"count", "2.5", nil, "not a whole number"},
		{"count", "4", nil, "must be one of 1, 2, 3"},
		{"urgent", "true", true, ""},
		{"urgent", "No", false, ""},
		{"urgent", "yes", true, ""},
		{"urgent", false, false, ""},
		{"urgent", "maybe", nil, "must be a boolean"},
		{"urgent", 1.0, nil, "must be a boolean"},
	}
	for _, tc := range tests {
		fd, _ := f.Get(tc.field)
		got, err := fd.Value(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s=%v: %v", tc.field, tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s=%v: err = %v, want %q", tc.field, tc.in, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("%s=%v = %#v, want %#v", tc.field, tc.in, got, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	f := mustForm(t)
	tests := []struct {
		name      string
		in        map[string]any
		approving bool
		want      map[string]any
		problems  []string // the fields named, in order
	}{
		{"approval with the required field", map[string]any{"ticket": "OPS-1", "amount": "3"}, true,
			map[string]any{"ticket": "OPS-1", "amount": 3.0}, nil},
		{"approval without it", map[string]any{"risk": "low"}, true, nil, []string{"ticket"}},
		{"approval with it blank", map[string]any{"ticket": "  "}, true, nil, []string{"ticket"}},
		{"null is not given", map[string]any{"ticket": nil}, true, nil, []string{"ticket"}},
		{"every problem at once", map[string]any{"tiket": "x", "amount": "lots", "risk": "mid"}, true, nil,
			[]string{"amount", "risk", "tiket", "ticket"}},
		{"a wrong required value is reported once", map[string]any{"ticket": 3.0}, true, nil, []string{"ticket"}},
		{"a rejection needs nothing", nil, false, map[string]any{}, nil},
		{"a rejection's values must still fit", map[string]any{"amount": "lots"}, false, nil, []string{"amount"}},
		{"a rejection may say why", map[string]any{"note": "numbers off"}, false, map[string]any{"note": "numbers off"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.Check(tc.in, tc.approving)
			if tc.problems == nil {
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("got %v, %v; want %v", got, err, tc.want)
				}
				return
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *Error", err)
			}
			var names []string
			for _, p := range fe.Problems {
				names = append(names, p.Field)
				if !strings.Contains(p.Sentence, `"`+p.Field+`"`) {
					t.Errorf("the sentence does not name the field: %s", p.Sentence)
				}
			}
			if !reflect.DeepEqual(names, tc.problems) {
				t.Errorf("problems with %v, want %v (%v)", names, tc.problems, err)
			}
		})
	}
	if _, err := Form(nil).Check(map[string]any{"x": "1"}, true); err == nil || !strings.Contains(err.Error(), "has no form") {
		t.Errorf("a node without a form took a field: %v", err)
	}
}

func TestOutput(t *testing.T) {
	f := mustForm(t)
	got := f.Output(map[string]any{"ticket": "T"})
	if len(got) != len(f) || got["ticket"] != "T" || got["risk"] != nil {
		t.Errorf("output = %v; want every field, nil where empty", got)
	}
	if _, ok := got["amount"]; !ok {
		t.Error("an empty optional field is missing from the output")
	}
}

func TestParseAssignments(t *testing.T) {
	got, err := ParseAssignments([]string{"ticket=OPS=12", "note=", " risk =low"})
	want := map[string]any{"ticket": "OPS=12", "note": "", "risk": "low"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	for _, bad := range [][]string{{"ticket"}, {"=x"}, {"a-b=1"}, {"a=1", "a=2"}} {
		if _, err := ParseAssignments(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestHint(t *testing.T) {
	f := mustForm(t)
	for name, want := range map[string]string{"ticket": "string, required", "risk": "string: low|high", "count": "integer: 1|2|3", "urgent": "boolean"} {
		if fd, _ := f.Get(name); fd.Hint() != want {
			t.Errorf("%s: hint %q, want %q", name, fd.Hint(), want)
		}
	}
}

// FuzzValue types arbitrary text for every field type: it never panics,
// and a value it accepts is of the field's type and accepted again.
func FuzzValue(f *testing.F) {
	for _, s := range []string{"", "12", "1e3", "-0", "true", "no", "low", "…", "0x1p3", "9007199254740993", " 2 "} {
		f.Add(s)
	}
	fm := mustForm(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, fd := range fm {
			v, err := fd.Value(s)
			if err != nil {
				continue
			}
			if !ofType(fd.Type, v) {
				t.Fatalf("%s accepted %q as %#v", fd.Type, s, v)
			}
			if again, err := fd.Value(v); err != nil || again != v {
				t.Fatalf("%s: %#v is not accepted again: %v", fd.Type, v, err)
			}
		}
	})
}
