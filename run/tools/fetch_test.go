package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeResolver answers from a table and counts lookups; a name missing
// from the table fails like NXDOMAIN.
type fakeResolver struct {
	names map[string][]string
	calls atomic.Int32
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.calls.Add(1)
	addrs, ok := r.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestSSRFRefusals(t *testing.T) {
	res := &fakeResolver{names: map[string][]string{
		"localhost":        {"127.0.0.1"},
		"evil.example":     {"93.184.216.34", "127.0.0.1"}, // one bad address among good ones
		"metadata.example": {"169.254.169.254"},
		"v6loop.example":   {"::1"},
		"ten.example":      {"10.1.2.3"},
		"rfc1918b.example": {"172.20.0.1"},
		"rfc1918c.example": {"192.168.1.1"},
		"cgnat.example":    {"100.64.0.1"},
		"ula.example":      {"fd12::1"},
		"ec2v6.example":    {"fd00:ec2::254"},
		"ll6.example":      {"fe80::1"},
		"mapped.example":   {"::ffff:127.0.0.1"},
		"mapped10.example": {"::ffff:10.0.0.1"},
		"nat64.example":    {"64:ff9b::a9fe:a9fe"},
		"6to4.example":     {"2002:7f00:1::1"},
		"mcast.example":    {"224.0.0.1"},
		"zero.example":     {"0.0.0.0"},
		"empty.example":    {},
	}}
	f, err := NewFetcher(FetchConfig{Resolver: res})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ url, reason string }{
		{"http://localhost/", "resolves to 127.0.0.1: loopback"},
		{"http://evil.example/", "resolves to 127.0.0.1: loopback"},
		{"http://metadata.example/latest/meta-data/", "169.254.169.254: cloud metadata endpoint"},
		{"http://v6loop.example/", "::1: loopback"},
		{"http://ten.example/", "10.1.2.3: private"},
		{"http://rfc1918b.example/", "172.20.0.1: private"},
		{"http://rfc1918c.example/", "192.168.1.1: private"},
		{"http://cgnat.example/", "CGNAT"},
		{"http://ula.example/", "fd12::1: private (unique local)"},
		{"http://ec2v6.example/", "fd00:ec2::254: cloud metadata endpoint"},
		{"http://ll6.example/", "fe80::1: link-local"},
		{"http://mapped.example/", "loopback (as IPv4-mapped ::ffff:127.0.0.1)"},
		{"http://mapped10.example/", "private (as IPv4-mapped"},
		{"http://nat64.example/", "cloud metadata endpoint (as NAT64"},
		{"http://6to4.example/", "loopback (as 6to4"},
		{"http://mcast.example/", "multicast"},
		{"http://zero.example/", "unspecified"},
		{"http://empty.example/", "resolves to no address"},
		{"http://nx.example/", "cannot resolve nx.example"},
		// Literal addresses in every spelling.
		{"http://127.0.0.1/", "127.0.0.1: loopback"},
		{"http://127.0.0.1:8080/", "127.0.0.1: loopback"},
		{"http://[::1]/", "::1: loopback"},
		{"http://[::ffff:127.0.0.1]/", "loopback (as IPv4-mapped"},
		{"http://[::ffff:a9fe:a9fe]/", "cloud metadata endpoint (as IPv4-mapped"},
		{"http://169.254.169.254/", "cloud metadata endpoint"},
		{"http://[fd00:ec2::254]/", "cloud metadata endpoint"},
		{"http://2130706433/", `"2130706433" is a non-canonical IP spelling (decimal, octal or hex forms are refused); it means 127.0.0.1`},
		{"http://0177.0.0.1/", `it means 127.0.0.1`},
		{"http://0x7f.0.0.1/", `it means 127.0.0.1`},
		{"http://0x7f000001/", `it means 127.0.0.1`},
		{"http://127.1/", `it means 127.0.0.1`},
		{"http://0251.0376.0251.0376/", `it means 169.254.169.254`},
		{"http://134744072/", `it means 8.8.8.8`}, // public, but still not canonical
		{"http://[fe80::1%25eth0]/", "zone"},
		{"http://user:pw@example.com/", "URL carries credentials"},
		{"file:///etc/passwd", `scheme "file" is not allowed`},
		{"gopher://example.com/", `scheme "gopher" is not allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, _, err := f.Check(context.Background(), "http_fetch", tt.url)
			var ref *Refusal
			if !errors.As(err, &ref) || ref.Code != CodeSSRF || !strings.Contains(ref.Reason, tt.reason) {
				t.Errorf("err = %v, want %s with %q", err, CodeSSRF, tt.reason)
			}
		})
	}
	t.Logf("RESULT ssrf-refusals trials=%d", len(tests))
}

func TestSSRFAllowed(t *testing.T) {
	res := &fakeResolver{names: map[string][]string{"example.com": {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"}}}
	f, _ := NewFetcher(FetchConfig{Resolver: res})
	u, ap, err := f.Check(context.Background(), "http_fetch", "https://example.com./x?y=1")
	if err != nil || ap.String() != "93.184.216.34:443" || u.Host != "example.com." {
		t.Fatalf("%v %v %v", u, ap, err)
	}
	if _, ap, err := f.Check(context.Background(), "http_fetch", "http://8.8.8.8:8080/"); err != nil || ap.String() != "8.8.8.8:8080" {
		t.Errorf("public literal refused: %v", err)
	}
}

func TestAllowList(t *testing.T) {
	res := &fakeResolver{names: map[string][]string{
		"api.example.com": {"93.184.216.34"}, "www.other.org": {"93.184.216.35"}, "internal.example.com": {"10.0.0.5"},
	}}
	f, err := NewFetcher(FetchConfig{Resolver: res, Allow: []string{"*.example.com", "www.other.org:8443"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url    string
		reason string // "" = allowed
	}{
		{"https://api.example.com/v1", ""},
		{"http://api.example.com/v1", ""},
		{"https://api.example.com:8443/v1", "api.example.com:8443 is not on the allow-list"},
		{"https://www.other.org:8443/", ""},
		{"https://www.other.org/", "www.other.org:443 is not on the allow-list"},
		{"https://example.net/", "example.net:443 is not on the allow-list"},
		// On the list, but private: the list never bypasses the guard.
		{"https://internal.example.com/", "10.0.0.5: private"},
	}
	for _, tt := range tests {
		_, _, err := f.Check(context.Background(), "http_fetch", tt.url)
		switch {
		case tt.reason == "" && err != nil:
			t.Errorf("%s refused: %v", tt.url, err)
		case tt.reason != "" && (err == nil || !strings.Contains(err.Error(), tt.reason)):
			t.Errorf("%s: err = %v, want %q", tt.url, err, tt.reason)
		}
	}
	for _, bad := range []string{"", "a/b", "[x", "h:0", "h:99999", "h:x"} {
		if _, err := NewFetcher(FetchConfig{Allow: []string{bad}}); err == nil {
			t.Errorf("allow-list entry %q accepted", bad)
		}
	}
}

// TestRedirectNotFollowed: a loopback test server, explicitly opened for
// the test, answers 302 to the metadata address; the fetcher returns the
// redirect as a result and never contacts the target.
func TestRedirectNotFollowed(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("x", 5000))
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"ua":%q,"host":%q}`, r.UserAgent(), r.Host)
		}
	}))
	defer srv.Close()
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())
	res := &fakeResolver{names: map[string][]string{"svc.test": {addr.Addr().String()}}}
	f, err := NewFetcher(FetchConfig{Resolver: res, MaxBytes: 1000,
		Allow:     []string{fmt.Sprintf("svc.test:%d", addr.Port()), fmt.Sprintf("127.0.0.1:%d", addr.Port())},
		AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		t.Fatal(err)
	}
	tool := HTTPFetch(f)

	r, err := call(t, tool, fmt.Sprintf(`{"url":"http://svc.test:%d/redirect"}`, addr.Port()))
	if err != nil {
		t.Fatal(err)
	}
	v := r.Value.(map[string]any)
	if v["status"] != 302 || v["redirect"] != "http://169.254.169.254/latest/meta-data/" || !strings.Contains(r.Text, "not followed") {
		t.Errorf("redirect result = %+v %q", v, r.Text)
	}
	if hits.Load() != 1 {
		t.Errorf("server hit %d times", hits.Load())
	}
	// The redirect target itself is refused even with link-local opened.
	f3, _ := NewFetcher(FetchConfig{Resolver: res, AllowNets: []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16")}})
	_, err = call(t, HTTPFetch(f3), `{"url":"http://169.254.169.254/latest/meta-data/"}`)
	if err == nil || !strings.Contains(err.Error(), "cloud metadata endpoint") {
		t.Errorf("metadata fetch: %v", err)
	}

	// The name was resolved once per request and the connection went to
	// the checked address (the Host header keeps the name).
	before := res.calls.Load()
	r, err = call(t, tool, fmt.Sprintf(`{"url":"http://svc.test:%d/json"}`, addr.Port()))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.calls.Load() - before; got != 1 {
		t.Errorf("%d lookups for one request", got)
	}
	if j := r.Value.(map[string]any)["json"].(map[string]any); j["host"] != fmt.Sprintf("svc.test:%d", addr.Port()) || j["ua"] != "agentlab" {
		t.Errorf("json = %v", j)
	}
	if r.Meta["addr"] != addr.String() {
		t.Errorf("connected to %v", r.Meta["addr"])
	}

	r, err = call(t, tool, fmt.Sprintf(`{"url":"http://127.0.0.1:%d/big"}`, addr.Port()))
	if err != nil || !r.Truncated || !strings.Contains(r.Text, "[body truncated at 1000 bytes]") || len(r.Value.(map[string]any)["body"].(string)) != 1000 {
		t.Errorf("cap: %v %v", err, r)
	}

	// Without AllowNets, the same loopback server is refused.
	f2, _ := NewFetcher(FetchConfig{Resolver: res})
	if _, err := call(t, HTTPFetch(f2), fmt.Sprintf(`{"url":"http://svc.test:%d/json"}`, addr.Port())); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("loopback without AllowNets: %v", err)
	}
	if _, err := call(t, tool, `{"url":"http://svc.test/","method":"POST"}`); err == nil || !strings.Contains(err.Error(), CodeArgs) {
		t.Errorf("POST through http_fetch: %v", err)
	}
}

func TestParseHostIP(t *testing.T) {
	tests := []struct {
		host            string
		want            string
		isIP, canonical bool
	}{
		{"127.0.0.1", "127.0.0.1", true, true},
		{"[::1]", "::1", true, true},
		{"2130706433", "127.0.0.1", true, false},
		{"0177.0.0.01", "127.0.0.1", true, false},
		{"0x7f.0x0.0x0.0x1", "127.0.0.1", true, false},
		{"10.1", "10.0.0.1", true, false},
		{"192.168.257", "192.168.1.1", true, false},
		{"4294967296", "invalid IP", true, false},
		{"example.com", "invalid IP", false, false},
		{"1e100.net", "invalid IP", false, false},
		{"08.1.1.1", "invalid IP", true, false},
		{"1.2.3.4.5", "invalid IP", false, false},
		{"123.com", "invalid IP", false, false},
	}
	for _, tt := range tests {
		a, isIP, canonical := parseHostIP(tt.host)
		if a.String() != tt.want || isIP != tt.isIP || canonical != tt.canonical {
			t.Errorf("parseHostIP(%q) = %v %v %v, want %s %v %v", tt.host, a, isIP, canonical, tt.want, tt.isIP, tt.canonical)
		}
	}
}

func FuzzParseHostIP(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "[::ffff:127.0.0.1]", "example.com", "1.2.3.4.5", "0x", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, isIP, canonical := parseHostIP(host)
		if canonical && !isIP {
			t.Fatal("canonical but not an IP")
		}
		if isIP && a.IsValid() {
			_ = classify(a, nil)
		}
		_ = json.Valid([]byte(host))
	})
}
