package canon

import "testing"

func TestCanonicalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1,"a":[true,false,null]}`, `{"a":[true,false,null],"b":1}`},
		{` { "x" : 1.0 } `, `{"x":1}`},
		{`[1e3, 0.5, -0, 1e21, 1.5e-7, 123456789012345678901234]`, `[1000,0.5,0,1e+21,1.5e-7,1.2345678901234569e+23]`},
		{`"<a&b>\u00e9\u0001"`, "\"<a&b>\u00e9\\u0001\""},
		{`{"z":{"d":1,"c":2}}`, `{"z":{"c":2,"d":1}}`},
	}
	for _, c := range cases {
		got, err := Canonicalize([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if string(got) != c.want {
			t.Errorf("Canonicalize(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCanonicalizeRejectsTrailing(t *testing.T) {
	// A stray closing bracket is trailing data too (a decoder's More
	// reports no further value before it).
	for _, in := range []string{`{} {}`, `"" }`, `1]`, `{"a":1}}`, `[] ] `, `null,`} {
		if _, err := Canonicalize([]byte(in)); err == nil {
			t.Errorf("Canonicalize(%s): want an error for trailing data", in)
		}
	}
	for _, in := range []string{" {} \n", "\t1\r\n"} {
		if _, err := Canonicalize([]byte(in)); err != nil {
			t.Errorf("Canonicalize(%q): %v; whitespace around a value is not trailing data", in, err)
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain ascii", `q"uote`, `back\slash`, "tab\t", "\x01", "é", "\u2028", "<&>", "bad\xff"} {
		want, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want x%s", s, got, want)
		}
	}
}
