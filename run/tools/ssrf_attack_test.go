package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// rebindingResolver answers a name with first on the first lookup and with
// then on every later one, as a DNS-rebinding server with a zero TTL does.
type rebindingResolver struct {
	mu          sync.Mutex
	first, then netip.Addr
	calls       atomic.Int32
}

func (r *rebindingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host != "rebind.test" {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls.Add(1) == 1 {
		return []netip.Addr{r.first}, nil
	}
	return []netip.Addr{r.then}, nil
}

// TestSSRFRebinding: the name answers a permitted address when it is
// checked and a forbidden one afterwards. The fetch must connect to the
// address that was checked (one lookup, no second one at dial time), and a
// name whose first answer is forbidden is refused whatever it says next.
func TestSSRFRebinding(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())

	// First answer: the test server (a range opened on purpose for the
	// test); every later answer: the metadata service.
	res := &rebindingResolver{first: addr.Addr(), then: netip.MustParseAddr("169.254.169.254")}
	f, err := NewFetcher(FetchConfig{Resolver: res, AllowNets: []netip.Prefix{netip.PrefixFrom(addr.Addr(), addr.Addr().BitLen())}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := call(t, HTTPFetch(f), fmt.Sprintf(`{"url":"http://rebind.test:%d/"}`, addr.Port()))
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if hits.Load() != 1 || r.Meta["addr"] != addr.String() || res.calls.Load() != 1 {
		t.Errorf("hits=%d addr=%v lookups=%d; want 1, %s, 1", hits.Load(), r.Meta["addr"], res.calls.Load(), addr)
	}
	// The next request looks the name up again, gets the metadata address,
	// and is refused.
	if _, err := call(t, HTTPFetch(f), fmt.Sprintf(`{"url":"http://rebind.test:%d/"}`, addr.Port())); err == nil || !containsAll(err.Error(), CodeSSRF, "cloud metadata endpoint") {
		t.Errorf("second lookup answering 169.254.169.254: %v", err)
	}

	// Reverse order: forbidden first, public later. Refused at once.
	res2 := &rebindingResolver{first: netip.MustParseAddr("127.0.0.1"), then: netip.MustParseAddr("93.184.216.34")}
	f2, _ := NewFetcher(FetchConfig{Resolver: res2})
	if _, _, err := f2.Check(context.Background(), "http_fetch", "http://rebind.test/"); err == nil || !containsAll(err.Error(), "loopback") {
		t.Errorf("first answer loopback: %v", err)
	}
	t.Logf("RESULT ssrf-rebinding trials=2")
}

// TestSSRFSpellings is the attack corpus of address spellings and names
// that lead to a forbidden address: every one must be refused with
// E-TOOL-SSRF (or E-TOOL-ARGS for a URL that does not parse), before any
// connection.
func TestSSRFSpellings(t *testing.T) {
	// What a public wildcard-DNS service (nip.io, sslip.io, rbndr.us,
	// localtest.me) answers for these names.
	res := &fakeResolver{names: map[string][]string{
		"127.0.0.1.nip.io":                  {"127.0.0.1"},
		"169.254.169.254.nip.io":            {"169.254.169.254"},
		"10-0-0-1.sslip.io":                 {"10.0.0.1"},
		"localtest.me":                      {"127.0.0.1"},
		"sub.localtest.me":                  {"127.0.0.1"},
		"7f000001.5db8d822.rbndr.us":        {"127.0.0.1", "93.184.216.34"},
		"a9fea9fe.5db8d822.rbndr.us":        {"93.184.216.34", "169.254.169.254"},
		"metadata.google.internal":          {"169.254.169.254"},
		"v4mapped.test":                     {"::ffff:169.254.169.254"},
		"v4compat.test":                     {"::127.0.0.1"},
		"teredo.test":                       {"2001:0:4136:e378:8000:63bf:3fff:fdd2"},
		"127.0.0.1":                         {"127.0.0.1"},
		"localhost.localdomain":             {"127.0.0.1"},
		"ip6-localhost":                     {"::1"},
		"docker.internal.test":              {"172.17.0.1"},
		"link.local.test":                   {"169.254.1.1"},
		"alibaba.metadata.test":             {"100.100.100.200"},
		"bench.test":                        {"198.18.0.1"},
		"broadcast.test":                    {"255.255.255.255"},
		"reserved.test":                     {"240.0.0.1"},
		"doc.test":                          {"192.0.2.1"},
		"sitelocal.test":                    {"fec0::1"},
		"ipv6mcast.test":                    {"ff02::1"},
		"nat64private.test":                 {"64:ff9b::10.0.0.1"},
		"sixtofour-metadata.test":           {"2002:a9fe:a9fe::1"},
		"mixed-order.test":                  {"2606:2800:220:1::1", "fd00::1"},
		"UPPER.localtest.me":                {"127.0.0.1"},
		"trailingdot.test":                  {"127.0.0.1"},
		"long.aaaaaaaaaaaaaaaaaaaaaaa.test": {"10.255.255.255"},
	}}
	f, err := NewFetcher(FetchConfig{Resolver: res})
	if err != nil {
		t.Fatal(err)
	}
	urls := []string{
		// Names (DNS rebinding services, wildcard DNS, internal names).
		"http://127.0.0.1.nip.io/", "http://169.254.169.254.nip.io/latest/", "http://10-0-0-1.sslip.io/",
		"http://localtest.me/", "http://sub.localtest.me:8080/", "http://7f000001.5db8d822.rbndr.us/",
		"http://a9fea9fe.5db8d822.rbndr.us/", "http://metadata.google.internal/computeMetadata/v1/",
		"http://v4mapped.test/", "http://v4compat.test/", "http://teredo.test/", "http://localhost.localdomain/",
		"http://ip6-localhost/", "http://docker.internal.test/", "http://link.local.test/",
		"http://alibaba.metadata.test/", "http://bench.test/", "http://broadcast.test/", "http://reserved.test/",
		"http://doc.test/", "http://sitelocal.test/", "http://ipv6mcast.test/", "http://nat64private.test/",
		"http://sixtofour-metadata.test/", "http://mixed-order.test/", "http://UPPER.LOCALTEST.ME/",
		"http://trailingdot.test./", "http://long.aaaaaaaaaaaaaaaaaaaaaaa.test/",
		// Literal IPv6 forms of IPv4 addresses.
		"http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://[0:0:0:0:0:ffff:127.0.0.1]/",
		"http://[::ffff:169.254.169.254]/", "http://[::ffff:10.0.0.1]/", "http://[::127.0.0.1]/",
		"http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://[::]/", "http://[::1]:80/",
		"http://[0000::1]/", "http://[fe80::1%25lo]/",
		// Decimal, octal, hex and short IPv4 spellings.
		"http://2130706433/", "http://017700000001/", "http://0x7f000001/", "http://0x7F.0.0.1/",
		"http://0177.1/", "http://127.1/", "http://127.0.1/", "http://0/", "http://0.0.0.0/",
		"http://127.000.000.001/", "http://2852039166/", "http://0xa9fea9fe/", "http://0251.254.169.254/",
		"http://169.254.43518/", "http://127.0.0.1./", "http://0x7f.0x0.0x0.0x1/", "http://4294967295/",
		// Other ways around the parser.
		"http://user@127.0.0.1/", "http://127.0.0.1%2f@example.com/", "http://example.com@127.0.0.1/",
		"HTTP://LOCALHOST.LOCALDOMAIN/", "ftp://example.com/", "file:///etc/passwd", "dict://127.0.0.1:11211/",
		"//127.0.0.1/", "http:/127.0.0.1/", "http://[::ffff:127.0.0.1%25eth0]/",
	}
	for _, u := range urls {
		_, _, err := f.Check(context.Background(), "http_fetch", u)
		var ref *Refusal
		if !errors.As(err, &ref) || (ref.Code != CodeSSRF && ref.Code != CodeArgs) {
			t.Errorf("%s: not refused (err = %v)", u, err)
		}
	}
	t.Logf("RESULT ssrf-spellings trials=%d", len(urls))
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
