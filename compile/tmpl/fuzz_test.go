package tmpl

import "testing"

// FuzzParse checks that no template makes Parse, Check or Render panic,
// that every issue and reference lies inside the string, and that a
// template without tags renders to itself.
func FuzzParse(f *testing.F) {
	for _, tc := range codeCases {
		f.Add(tc.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tm, issues := Parse(src)
		all := append(issues, Check(src, testScope)...)
		for _, is := range all {
			if is.Offset < 0 || is.End < is.Offset || is.End > len(src) || is.Code == "" || is.Message == "" {
				t.Fatalf("Parse(%q): bad issue %+v", src, is)
			}
		}
		if tm == nil {
			return
		}
		for _, r := range tm.Refs() {
			if r.Offset < 0 || r.End < r.Offset || r.End > len(src) || r.Root == "" {
				t.Fatalf("Parse(%q): bad ref %+v", src, r)
			}
		}
		out, err := tm.Render(renderEnv())
		if tm.IsLiteral() && (err != nil || out != src) {
			t.Fatalf("literal %q rendered as %q, %v", src, out, err)
		}
	})
}
