package tools

import (
	"net/netip"
	"strconv"
	"strings"
)

// blockedRange is an address range the fetcher refuses, with the name that
// goes into the refusal.
type blockedRange struct {
	prefix netip.Prefix
	why    string
}

// metadataAddrs are the cloud instance-metadata endpoints. They are refused
// even when an operator opens a private range with AllowNets.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack…
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// blockedRanges lists every range that is not the public internet.
var blockedRanges = func() []blockedRange {
	rows := []struct{ cidr, why string }{
		{"0.0.0.0/8", "unspecified (this network)"},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "shared address space (CGNAT)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "IETF protocol assignments"},
		{"192.0.2.0/24", "documentation"},
		{"192.88.99.0/24", "6to4 relay anycast"},
		{"192.168.0.0/16", "private"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible (deprecated)"},
		{"100::/64", "discard-only"},
		{"2001::/32", "Teredo tunnelling"},
		{"2001:db8::/32", "documentation"},
		{"fc00::/7", "private (unique local)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local (deprecated)"},
		{"ff00::/8", "multicast"},
	}
	out := make([]blockedRange, len(rows))
	for i, r := range rows {
		out[i] = blockedRange{netip.MustParsePrefix(r.cidr), r.why}
	}
	return out
}()

var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	nat64v2 = netip.MustParsePrefix("64:ff9b:1::/48")
	sixTo4  = netip.MustParsePrefix("2002::/16")
)

// classify returns why addr may not be fetched, or "" when it is a public
// address. IPv4 addresses hidden in IPv6 forms (mapped ::ffff:a.b.c.d,
// NAT64 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD::) are judged by the IPv4
// address they carry. allow lists ranges an operator opened on purpose;
// metadata addresses stay refused.
func classify(addr netip.Addr, allow []netip.Prefix) string {
	addr = addr.WithZone("")
	if inner, how := embeddedV4(addr); how != "" {
		if why := classify(inner, allow); why != "" {
			return why + " (as " + how + " " + addr.String() + ")"
		}
		return ""
	}
	for _, m := range metadataAddrs {
		if addr == m {
			return "cloud metadata endpoint"
		}
	}
	for _, p := range allow {
		if p.Contains(addr) {
			return ""
		}
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(addr) {
			return r.why
		}
	}
	return ""
}

// embeddedV4 extracts an IPv4 address carried in an IPv6 one.
func embeddedV4(a netip.Addr) (netip.Addr, string) {
	if !a.Is6() {
		return netip.Addr{}, ""
	}
	b := a.As16()
	switch {
	case a.Is4In6():
		return a.Unmap(), "IPv4-mapped"
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64"
	case nat64v2.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64"
	case sixTo4.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4"
	}
	return netip.Addr{}, ""
}

// parseHostIP reads host as an IP address in any spelling that a C
// resolver (inet_aton) would accept: dotted quad, IPv6, and the legacy
// forms — a single decimal number (2130706433), octal parts (0177.0.0.1),
// hex parts (0x7f.1), and fewer than four parts (127.1). canonical is
// false for the legacy forms, which the fetcher refuses outright: no
// legitimate URL needs them and they exist to slip past naive filters.
func parseHostIP(host string) (addr netip.Addr, isIP, canonical bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false, false
	}
	for _, p := range parts {
		if p == "" || p[0] < '0' || p[0] > '9' || strings.Trim(p, "0123456789abcdefABCDEFxX") != "" {
			return netip.Addr{}, false, false // a name, not a number
		}
	}
	// From here on the host looks numeric: it is an address or refused.
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseInetAtonPart(p)
		if !ok {
			return netip.Addr{}, true, false
		}
		vals[i] = v
	}
	// inet_aton: the last part fills the remaining bytes.
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, true, false // looks numeric but is invalid: refuse
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, true, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true, false
}

// parseInetAtonPart parses one part: decimal, 0-prefixed octal or 0x hex.
func parseInetAtonPart(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	digits := p
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, digits = 16, p[2:]
		if digits == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	v, err := strconv.ParseUint(digits, base, 64)
	return v, err == nil
}
