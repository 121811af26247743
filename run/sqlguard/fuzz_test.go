package sqlguard

import "testing"

// FuzzGuard checks that the guard never panics, always answers
// consistently, and that nothing it accepts carries a write keyword or a
// second statement in SQLite's own token stream.
func FuzzGuard(f *testing.F) {
	for _, c := range corpus {
		f.Add(c.sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		v, shape := Inspect(sql)
		if v.OK != (v.Code == "") {
			t.Fatalf("inconsistent verdict %+v", v)
		}
		if v2 := Check(sql); v2 != v {
			t.Fatalf("not deterministic: %+v then %+v", v, v2)
		}
		if !v.OK {
			if v.Line < 1 || v.Col < 1 || v.Offset < 0 || v.Offset > len(sql) || v.Reason == "" {
				t.Fatalf("bad refusal %+v", v)
			}
			return
		}
		toks, err := lex(sql)
		if err != nil {
			t.Fatalf("accepted but does not lex: %v", err)
		}
		if len(toks) == 0 || toks[0].Kind != tWord || !starts[toks[0].Value] {
			t.Fatalf("accepted a statement that does not start with SELECT/WITH/VALUES")
		}
		ended := false
		for i, tk := range toks {
			if tk.Kind == tOp && tk.Text == ";" {
				ended = true
				continue
			}
			if ended {
				t.Fatalf("accepted a second statement at %d", tk.Off)
			}
			if tk.Kind == tWord && (writeWords[tk.Value] || (tk.Value == "REPLACE" && (i+1 >= len(toks) || toks[i+1].Text != "("))) {
				t.Fatalf("accepted write keyword %s", tk.Value)
			}
			if tk.Kind == tParam && tk.Text[0] != ':' {
				t.Fatalf("accepted parameter %s", tk.Text)
			}
		}
		if !shape.Flat && shape.Items != nil {
			t.Fatalf("items reported for a statement that is not flat")
		}
	})
}
