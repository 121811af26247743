// Package bucket talks to an S3-compatible bucket: the one thing several
// machines running agentlab share (docs/scale.md). Everything written is
// either content-addressed or written once with a conditional PUT, so no
// lock or coordinator is needed. Only the commands that publish, pull or
// list (cmd/agentlab) import it; verify never does.
//
// Where it fits: docs/architecture.md#running.
package bucket

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// Location is where a shared store lives: s3://BUCKET/PREFIX with options
// in the query (endpoint, path_style, region, conditional).
type Location struct {
	Bucket string
	// Prefix is the key prefix, without leading or trailing slash ("" for
	// the bucket's root).
	Prefix string
	// Endpoint is a custom endpoint URL (MinIO, versitygw, Ceph, R2 …);
	// "" uses AWS's.
	Endpoint  string
	PathStyle bool
	Region    string
	// Conditional says whether the server honours If-None-Match on PUT:
	// "auto" (probe once per process, the default), "on" or "off".
	Conditional string
}

// ParseLocation reads s3://bucket/prefix?endpoint=…&path_style=true&region=…
// Credentials never appear in it: they come from the AWS credential chain
// (environment, shared config, web identity, instance role).
func ParseLocation(s string) (Location, error) {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the URL, which may hold a credential
		}
		return Location{}, fmt.Errorf("the store URL cannot be read: %v; write it as s3://BUCKET/PREFIX?endpoint=URL&path_style=true", err)
	}
	if u.Scheme != "s3" {
		return Location{}, fmt.Errorf("store %q: the scheme must be s3:// (an S3-compatible bucket), e.g. s3://team-runs/agentlab", redact(u))
	}
	if u.User != nil {
		return Location{}, fmt.Errorf("store %q: credentials do not belong in the store URL; use the AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a web identity or an instance role)", redact(u))
	}
	if u.Host == "" {
		return Location{}, fmt.Errorf("store %q: no bucket; write it as s3://BUCKET/PREFIX", redact(u))
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return Location{}, fmt.Errorf("store %q: a store URL has no #fragment (everything after # would be dropped, endpoint included); write it as s3://BUCKET/PREFIX?endpoint=URL", redact(u))
	}
	l := Location{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), Conditional: "auto"}
	for _, seg := range strings.Split(l.Prefix, "/") {
		if (seg == "." || seg == ".." || strings.ContainsRune(seg, 0)) && l.Prefix != "" {
			return Location{}, fmt.Errorf("store %q: the prefix %q has a %q segment; name the prefix plainly, e.g. s3://%s/agentlab", redact(u), l.Prefix, seg, l.Bucket)
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Location{}, fmt.Errorf("store %q: the options cannot be read: %v", redact(u), err)
	}
	for k, vs := range q {
		switch k {
		case "endpoint", "path_style", "region", "conditional":
			if len(vs) > 1 {
				return Location{}, fmt.Errorf("store %q: option %q is given %d times; give it once", redact(u), k, len(vs))
			}
		default:
			if credentialWord.MatchString(k) {
				return Location{}, fmt.Errorf("store %q: credentials do not belong in the store URL (option %q); use the AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a web identity or an instance role)", redact(u), k)
			}
			return Location{}, fmt.Errorf("store %q: unknown option %q; the options are endpoint, path_style, region and conditional", redact(u), k)
		}
	}
	l.Endpoint = q.Get("endpoint")
	if l.Endpoint != "" {
		eu, err := url.Parse(l.Endpoint)
		if err == nil && eu.User != nil {
			return Location{}, fmt.Errorf("store %q: credentials do not belong in the endpoint; use the AWS credential chain", redact(u))
		}
		if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
			return Location{}, fmt.Errorf("store %q: the endpoint is not an http(s) URL, e.g. endpoint=http://127.0.0.1:7070", redact(u))
		}
		if eu.RawQuery != "" || eu.Fragment != "" || (eu.Path != "" && eu.Path != "/") {
			return Location{}, fmt.Errorf("store %q: the endpoint is a scheme, host and port only (no path, query or fragment), e.g. endpoint=http://127.0.0.1:7070", redact(u))
		}
	}
	if v := q.Get("path_style"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Location{}, fmt.Errorf("store %q: path_style=%q is not true or false", redact(u), v)
		}
		l.PathStyle = b
	}
	l.Region = q.Get("region")
	if v := q.Get("conditional"); v != "" {
		switch v {
		case "auto", "on", "off":
			l.Conditional = v
		default:
			return Location{}, fmt.Errorf("store %q: conditional=%q is not auto, on or off", redact(u), v)
		}
	}
	return l, nil
}

// String is the location as a URL, the form users write (the endpoint is
// not escaped, so that it reads as typed).
func (l Location) String() string {
	s := "s3://" + l.Bucket + "/" + l.Prefix
	var q []string
	if l.Endpoint != "" {
		q = append(q, "endpoint="+l.Endpoint)
	}
	if l.PathStyle {
		q = append(q, "path_style=true")
	}
	if l.Region != "" {
		q = append(q, "region="+url.QueryEscape(l.Region))
	}
	if l.Conditional != "" && l.Conditional != "auto" {
		q = append(q, "conditional="+l.Conditional)
	}
	if len(q) > 0 {
		s += "?" + strings.Join(q, "&")
	}
	return s
}

// Key joins the prefix and the parts of a key.
func (l Location) Key(parts ...string) string {
	k := strings.Join(parts, "/")
	if l.Prefix == "" {
		return k
	}
	return l.Prefix + "/" + k
}

// credentialWord matches option names that carry a credential.
var credentialWord = lazyre.New(`(?i)secret|token|password|passwd|credential|signature|access.?key|session|auth`)

// redact is the URL for a message: without user info, options or
// fragment, which may hold credentials.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.Fragment = ""
	return c.String()
}
