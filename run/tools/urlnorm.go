package tools

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// NormalizeURL rewrites a URL into the one spelling the fetcher acts on,
// so that a permission rule written for one spelling catches them all:
// scheme and host in lower case, a trailing dot on the host dropped,
// "localhost" (and names under .localhost) as 127.0.0.1, an IPv4 address
// carried in IPv6 (::ffff:a.b.c.d) as the IPv4 address, the default port
// dropped and leading zeros of a port removed, percent-escapes of
// unreserved characters decoded and the others in upper case, empty and
// dot segments of the path removed. A URL that does not parse is returned
// as given (the fetcher refuses it).
func NormalizeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.TrimRight(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return raw // the fetcher refuses it
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		host = "127.0.0.1"
	}
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.Unmap().String()
	}
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err == nil {
			port = strconv.Itoa(n)
		}
		if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
			port = ""
		}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	p := normalizeEscapes(u.EscapedPath())
	segs := []string{}
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, s)
		}
	}
	p = "/" + strings.Join(segs, "/")
	if len(segs) > 0 && (strings.HasSuffix(u.EscapedPath(), "/") || strings.HasSuffix(u.EscapedPath(), "/.") || strings.HasSuffix(u.EscapedPath(), "/..")) {
		p += "/"
	}
	out := u.Scheme + "://" + host + p
	if u.RawQuery != "" || u.ForceQuery {
		out += "?" + normalizeEscapes(u.RawQuery)
	}
	return out
}

// normalizeEscapes decodes the percent-escapes of unreserved characters
// (letters, digits, - . _ ~) and writes the others in upper case.
func normalizeEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if v < 0x80 && isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteString(strings.ToUpper(s[i : i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func ishex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
