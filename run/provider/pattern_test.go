package provider

import (
	"regexp"
	"testing"
)

func TestGenPattern(t *testing.T) {
	tests := []struct {
		pattern        string
		minLen, maxLen int
		ok             bool
	}{
		{`^[A-Z]{3}-\d{4}$`, 0, -1, true},
		{`^(foo|bar)+baz?$`, 0, -1, true},
		{`^[^\s@]+@[^\s@]+\.[a-z]{2,}$`, 0, -1, true},
		{`colou?r`, 0, -1, true},
		{`^\p{Han}{2,4}$`, 0, -1, true},
		{`^.{10}$`, 10, 10, true},
		{`^[a-z]*$`, 3, 5, true},
		{`(?i)^hello$`, 0, -1, true},
		{`^\w+\s\w+$`, 0, -1, true},
		{`^a{1000}$`, 0, -1, true},
		{`[`, 0, -1, false},                  // does not parse
		{`(?=x)`, 0, -1, false},              // lookahead: not in Go syntax
		{`[^\x00-\x{10FFFF}]`, 0, -1, false}, // matches nothing
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			for seed := int64(0); seed < 20; seed++ {
				s, ok := genPattern(newRNG(seed, []byte(tt.pattern)), tt.pattern, tt.minLen, tt.maxLen)
				if ok != tt.ok {
					t.Fatalf("seed %d: ok = %v, want %v (%q)", seed, ok, tt.ok, s)
				}
				if !ok {
					continue
				}
				if !regexp.MustCompile(tt.pattern).MatchString(s) {
					t.Fatalf("seed %d: %q does not match", seed, s)
				}
				if n := len([]rune(s)); n < tt.minLen || (tt.maxLen >= 0 && n > tt.maxLen) {
					t.Fatalf("seed %d: %q has length %d", seed, s, n)
				}
			}
		})
	}
}
