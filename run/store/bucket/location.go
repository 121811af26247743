// Package bucket talks to an S3-compatible bucket: the one thing several
// machines running agentlab share (docs/scale.md). Everything written is
// either content-addressed or written once with a conditional PUT, so no
// lock or coordinator is needed. Only the commands that publish, pull or
// list (cmd/agentlab) import it; verify never does.
//
// Where it fits: docs/architecture.md#running.
package bucket

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
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
		return Location{}, fmt.Errorf("store %q: %v; write it as s3://BUCKET/PREFIX?endpoint=URL&path_style=true", s, err)
	}
	if u.Scheme != "s3" {
		return Location{}, fmt.Errorf("store %q: the scheme must be s3:// (an S3-compatible bucket), e.g. s3://team-runs/agentlab", s)
	}
	if u.User != nil {
		return Location{}, fmt.Errorf("store %q: credentials do not belong in the store URL; use the AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a web identity or an instance role)", redact(u))
	}
	if u.Host == "" {
		return Location{}, fmt.Errorf("store %q: no bucket; write it as s3://BUCKET/PREFIX", s)
	}
	l := Location{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), Conditional: "auto"}
	q := u.Query()
	for k := range q {
		switch k {
		case "endpoint", "path_style", "region", "conditional":
		default:
			return Location{}, fmt.Errorf("store %q: unknown option %q; the options are endpoint, path_style, region and conditional", s, k)
		}
	}
	l.Endpoint = q.Get("endpoint")
	if l.Endpoint != "" {
		eu, err := url.Parse(l.Endpoint)
		if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
			return Location{}, fmt.Errorf("store %q: endpoint %q is not an http(s) URL, e.g. endpoint=http://127.0.0.1:7070", s, l.Endpoint)
		}
		if eu.User != nil {
			return Location{}, fmt.Errorf("store %q: credentials do not belong in the endpoint; use the AWS credential chain", redact(u))
		}
	}
	if v := q.Get("path_style"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Location{}, fmt.Errorf("store %q: path_style=%q is not true or false", s, v)
		}
		l.PathStyle = b
	}
	l.Region = q.Get("region")
	if v := q.Get("conditional"); v != "" {
		switch v {
		case "auto", "on", "off":
			l.Conditional = v
		default:
			return Location{}, fmt.Errorf("store %q: conditional=%q is not auto, on or off", s, v)
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

func redact(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return c.String()
}
