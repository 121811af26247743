package tools

import "testing"

// TestNormalizeURLAttackerSpellings: every spelling an attacker uses to
// slip a URL past a rule written for its plain form comes out as that
// plain form.
func TestNormalizeURLAttackerSpellings(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://internal.example.com/admin", "https://internal.example.com/admin"},
		{"HTTPS://Internal.EXAMPLE.com/admin", "https://internal.example.com/admin"},
		{"https://internal.example.com./admin", "https://internal.example.com/admin"},
		{"https://internal.example.com:443/admin", "https://internal.example.com/admin"},
		{"https://internal.example.com:0443/admin", "https://internal.example.com/admin"},
		{"https://internal.example.com//admin", "https://internal.example.com/admin"},
		{"https://internal.example.com/./admin", "https://internal.example.com/admin"},
		{"https://internal.example.com/x/../admin", "https://internal.example.com/admin"},
		{"https://internal.example.com/%61dmin", "https://internal.example.com/admin"},
		{"https://internal.example.com/%2e%2e/admin", "https://internal.example.com/admin"},
		{"http://localhost:8080/x", "http://127.0.0.1:8080/x"},
		{"http://app.localhost/x", "http://127.0.0.1/x"},
		{"http://[::ffff:127.0.0.1]/x", "http://127.0.0.1/x"},
		{"http://[::FFFF:7f00:1]:80/x", "http://127.0.0.1/x"},
		{"https://a.example/x?q=%7e%2f", "https://a.example/x?q=~%2F"},
		{"https://a.example", "https://a.example/"},
		{"https://a.example/dir/", "https://a.example/dir/"},
		{"not a url", "not a url"},
	}
	for _, tt := range tests {
		if got := NormalizeURL(tt.in); got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzNormalizeURL: any text normalises without a panic, and normalising
// twice changes nothing (a rule sees one spelling, however the model
// wrote it).
func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{"https://Internal.EXAMPLE.com.:0443//./%61dmin/../x?q=%7e", "http://[::ffff:127.0.0.1]/", "http://localhost/a/./b/../c/", "https://a.example", "mailto:x", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := NormalizeURL(s)
		if twice := NormalizeURL(once); twice != once {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
	})
}
