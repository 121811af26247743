package diag

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"ab", "ba", 1},
		{"agnet", "agent", 1},
		{"trasnform", "transform", 1},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"Agent", "agent", 1},
		{"héllo", "hello", 1}, // runes, not bytes
		{"gvm", "gmv", 1},
	}
	for _, c := range cases {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestMaxEdits(t *testing.T) {
	cases := []struct {
		name string
		want int
	}{
		{"", 0}, {"ab", 0}, {"abc", 1}, {"agent", 1}, {"prompt", 2}, {"transform", 3}, {"averyveryverylongname", 3},
	}
	for _, c := range cases {
		if got := MaxEdits(c.name); got != c.want {
			t.Errorf("MaxEdits(%q) = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	nodeTypes := []string{"agent", "llm", "output", "transform", "tool", "input"}
	cases := []struct {
		name   string
		cands  []string
		want   string
		wantOK bool
	}{
		{"agnet", nodeTypes, "agent", true},
		{"promt", []string{"prompt", "model", "system"}, "prompt", true},
		{"llm", nodeTypes, "llm", true},
		{"xyz", nodeTypes, "", false},
		{"trasnform", nodeTypes, "transform", true},
		{"Output", nodeTypes, "output", true},
		{"a", []string{"b", "c"}, "", false},
		{"A", []string{"a", "c"}, "a", true},
		{"x", nil, "", false},
		// Ties go to the alphabetically first candidate, whatever the order.
		{"bat", []string{"cat", "bar"}, "bar", true},
		{"bat", []string{"bar", "cat"}, "bar", true},
		// A long name is skipped by length alone.
		{strings.Repeat("a", 10000), []string{"a"}, "", false},
	}
	for _, c := range cases {
		got, ok := Closest(c.name, c.cands)
		if got != c.want || ok != c.wantOK {
			t.Errorf("Closest(%.20q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.wantOK)
		}
	}
}

func TestClosestWithin(t *testing.T) {
	cases := []struct {
		name   string
		cands  []string
		max    int
		want   string
		wantOK bool
	}{
		{"sevrers", []string{"servers"}, 2, "servers", true},
		{"sevrers", []string{"servers"}, 0, "", false},
		{"tiemout", []string{"timeout", "headers"}, 1, "timeout", true},
		{"zzz", []string{"abc"}, 3, "abc", true},
		{"zzz", []string{"abc"}, 2, "", false},
		{"x", []string{"x"}, -1, "", false},
		{"MOCK", []string{"mock", "script"}, 0, "mock", true},
	}
	for _, c := range cases {
		got, ok := ClosestWithin(c.name, c.cands, c.max)
		if got != c.want || ok != c.wantOK {
			t.Errorf("ClosestWithin(%q, %d) = %q, %v; want %q, %v", c.name, c.max, got, ok, c.want, c.wantOK)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	cases := []struct {
		name  string
		cands []string
		want  string
	}{
		{"agnet", []string{"agent", "tool"}, `did you mean "agent"?`},
		{"agent", []string{"agent", "tool"}, ""},
		{"zzzzzz", []string{"agent", "tool"}, ""},
		{"Agent", []string{"agent"}, `did you mean "agent"?`},
	}
	for _, c := range cases {
		if got := DidYouMean(c.name, c.cands); got != c.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// FuzzEditDistance checks the properties every caller relies on: the
// distance is symmetric, zero exactly for equal strings, and bounded by
// the longer length and below by the difference in lengths.
func FuzzEditDistance(f *testing.F) {
	f.Add("agnet", "agent")
	f.Add("", "abc")
	f.Add("héllo", "hello")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		d := EditDistance(a, b)
		if d != EditDistance(b, a) {
			t.Fatalf("not symmetric: %q %q", a, b)
		}
		// Invalid UTF-8 decodes to U+FFFD, so equality is on the runes.
		if (d == 0) != (string([]rune(a)) == string([]rune(b))) {
			t.Fatalf("EditDistance(%q, %q) = %d", a, b, d)
		}
		la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
		if d > max(la, lb) || d < max(la-lb, lb-la) {
			t.Fatalf("EditDistance(%q, %q) = %d out of bounds", a, b, d)
		}
	})
}
