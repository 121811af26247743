package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// Resolve looks a host name up the way the guard does (the configured
// resolver), for permission rules written with addresses.
func (f *Fetcher) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	return f.cfg.Resolver.LookupNetIP(ctx, "ip", host)
}

// Resolver looks up a host name. *net.Resolver satisfies it; tests pass
// their own so that no DNS is needed.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// FetchConfig configures the SSRF guard shared by http_fetch and the
// custom HTTP tools.
type FetchConfig struct {
	// Allow restricts fetching to these endpoints: "host" or "host:port",
	// where host may use glob wildcards ("*.example.com") and port may be
	// "*". A pattern without a port matches only the scheme's default port.
	// Empty means any public host. The list only narrows: an allowed host
	// that resolves to a private address is still refused.
	Allow []string
	// AllowNets opens address ranges that are otherwise refused (an
	// internal API on 10.1.2.0/24). It is an explicit operator decision;
	// cloud metadata addresses stay refused.
	AllowNets []netip.Prefix
	MaxBytes  int64         // response body cap (1 MiB)
	Timeout   time.Duration // whole request (20 s)
	Resolver  Resolver      // default net.DefaultResolver
	UserAgent string
}

// Fetcher performs guarded HTTP requests: every address a name resolves to
// is checked, the connection goes to the checked address (no second
// lookup, so DNS rebinding cannot swap it), no proxy is used, and
// redirects are returned, never followed.
type Fetcher struct {
	cfg   FetchConfig
	allow []endpoint
}

type endpoint struct{ host, port string }

// NewFetcher checks cfg and fills in defaults.
func NewFetcher(cfg FetchConfig) (*Fetcher, error) {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 1 << 20
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "agentlab"
	}
	f := &Fetcher{cfg: cfg}
	for _, p := range cfg.Allow {
		host, port := p, ""
		if h, pt, err := net.SplitHostPort(p); err == nil {
			host, port = h, pt
		}
		host = strings.ToLower(strings.TrimSuffix(host, "."))
		if host == "" || strings.ContainsAny(host, "/@ ") {
			return nil, fmt.Errorf("allow-list entry %q is not host or host:port", p)
		}
		if _, err := path.Match(host, "x"); err != nil {
			return nil, fmt.Errorf("allow-list entry %q: bad pattern: %v", p, err)
		}
		if port != "" && port != "*" {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("allow-list entry %q: port %q is not a number from 1 to 65535 or *", p, port)
			}
		}
		f.allow = append(f.allow, endpoint{host, port})
	}
	return f, nil
}

// Request is one HTTP request to make.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Response is what came back. A redirect is a response like any other,
// with Redirect set to where it points.
type Response struct {
	Status    int
	Header    http.Header
	Body      []byte
	Truncated bool
	Redirect  string
	Addr      string // the address connected to
}

// Check applies the guard to rawURL without connecting and returns the
// address a request would connect to.
func (f *Fetcher) Check(ctx context.Context, tool, rawURL string) (*url.URL, netip.AddrPort, error) {
	bad := func(fix, format string, args ...any) error { return refuse(tool, CodeSSRF, fix, format, args...) }
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, netip.AddrPort{}, refuse(tool, CodeArgs, "pass an absolute http or https URL", "URL %q cannot be parsed: %v", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, netip.AddrPort{}, bad("use an http or https URL", "scheme %q is not allowed", u.Scheme)
	}
	if u.User != nil {
		return nil, netip.AddrPort{}, bad("remove the user:password@ part; credentials never go in URLs", "URL carries credentials")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return nil, netip.AddrPort{}, bad("give a host", "URL %q has no host", rawURL)
	}
	if strings.Contains(host, "%") {
		return nil, netip.AddrPort{}, bad("", "IPv6 zone identifiers are not allowed")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	pn, err := strconv.Atoi(port)
	if err != nil || pn < 1 || pn > 65535 {
		return nil, netip.AddrPort{}, bad("", "port %q is not valid", port)
	}
	if len(f.allow) > 0 && !f.allowed(host, port, u.Scheme) {
		return nil, netip.AddrPort{}, bad("add it to the fetch allow-list if it should be reachable", "%s:%s is not on the allow-list", host, port)
	}
	var addrs []netip.Addr
	if a, isIP, canonical := parseHostIP(host); isIP {
		if !canonical {
			return nil, netip.AddrPort{}, bad("write the address in dotted decimal (or use a name)", "host %q is a non-canonical IP spelling (decimal, octal or hex forms are refused)%s", host, legacyMeaning(a))
		}
		addrs = []netip.Addr{a}
	} else {
		addrs, err = f.cfg.Resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, netip.AddrPort{}, bad("check the host name", "cannot resolve %s: %v", host, err)
		}
		if len(addrs) == 0 {
			return nil, netip.AddrPort{}, bad("check the host name", "%s resolves to no address", host)
		}
	}
	for _, a := range addrs {
		if why := classify(a, f.cfg.AllowNets); why != "" {
			if literal := len(addrs) == 1 && strings.Trim(host, "[]") == a.String(); literal {
				return nil, netip.AddrPort{}, bad("only public internet addresses can be fetched", "%s: %s address", a, why)
			}
			return nil, netip.AddrPort{}, bad("only public internet addresses can be fetched", "%s resolves to %s: %s address", host, a, why)
		}
	}
	return u, netip.AddrPortFrom(addrs[0].Unmap(), uint16(pn)), nil
}

func legacyMeaning(a netip.Addr) string {
	if a.IsValid() {
		return "; it means " + a.String()
	}
	return ""
}

func (f *Fetcher) allowed(host, port, scheme string) bool {
	def := map[string]string{"http": "80", "https": "443"}[scheme]
	for _, e := range f.allow {
		if ok, _ := path.Match(e.host, host); !ok {
			continue
		}
		switch e.port {
		case "*":
			return true
		case "":
			if port == def {
				return true
			}
		default:
			if e.port == port {
				return true
			}
		}
	}
	return false
}

// Do performs req through the guard.
func (f *Fetcher) Do(ctx context.Context, tool string, req Request) (*Response, error) {
	u, pinned, err := f.Check(ctx, tool, req.URL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	transport := &http.Transport{
		Proxy: nil, // a proxy would resolve the name again, out of our sight
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "tcp", pinned.String())
		},
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  f.cfg.Timeout,
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(req.Body))
	if err != nil {
		return nil, refuse(tool, CodeArgs, "", "request cannot be built: %v", err)
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	if hreq.Header.Get("User-Agent") == "" {
		hreq.Header.Set("User-Agent", f.cfg.UserAgent)
	}
	resp, err := client.Do(hreq)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %s did not answer within %s", tool, u.Redacted(), f.cfg.Timeout)
		}
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the response: %w", tool, err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body, Addr: pinned.String()}
	if int64(len(body)) > f.cfg.MaxBytes {
		out.Body, out.Truncated = body[:f.cfg.MaxBytes], true
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		if loc := resp.Header.Get("Location"); loc != "" {
			if lu, err := u.Parse(loc); err == nil {
				out.Redirect = lu.String()
			} else {
				out.Redirect = loc
			}
		}
	}
	return out, nil
}
