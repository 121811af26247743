package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// HTTPFetch returns the http_fetch tool: GET (or HEAD) of a public URL
// through f's guard.
func HTTPFetch(f *Fetcher) Tool { return &httpFetch{f} }

type httpFetch struct{ f *Fetcher }

func (t *httpFetch) Info() Info {
	return Info{Name: "http_fetch", Effect: Read,
		Description: fmt.Sprintf("Fetch a public http(s) URL with GET. Private, loopback and metadata addresses are refused. Redirects are not followed: the result says where they point. Bodies over %d bytes are cut.", t.f.cfg.MaxBytes),
		Schema: map[string]any{"type": "object", "additionalProperties": false, "required": []any{"url"},
			"properties": map[string]any{
				"url":    map[string]any{"type": "string", "minLength": 1, "description": "absolute http or https URL"},
				"method": map[string]any{"type": "string", "enum": []any{"GET", "HEAD"}},
			}}}
}

func (t *httpFetch) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	var a struct{ URL, Method string }
	if err := decodeArgs("http_fetch", args, &a); err != nil {
		return nil, err
	}
	resp, err := t.f.Do(ctx, "http_fetch", Request{Method: a.Method, URL: a.URL})
	if err != nil {
		return nil, err
	}
	return responseResult(resp), nil
}

// responseResult renders a response for a model and for a tool node.
func responseResult(resp *Response) *Result {
	ctype := resp.Header.Get("Content-Type")
	value := map[string]any{"status": resp.Status, "content_type": ctype, "truncated": resp.Truncated}
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d %s\n", resp.Status, http.StatusText(resp.Status))
	if resp.Redirect != "" {
		value["redirect"] = resp.Redirect
		fmt.Fprintf(&b, "redirect to %s (not followed; fetch that URL yourself if it is allowed)\n", resp.Redirect)
	}
	if ctype != "" {
		fmt.Fprintf(&b, "content-type: %s\n", ctype)
	}
	b.WriteString("\n")
	if textual(ctype, resp.Body) {
		body := strings.ToValidUTF8(string(resp.Body), "\uFFFD")
		value["body"] = body
		if mt, _, _ := mime.ParseMediaType(ctype); strings.HasSuffix(mt, "json") {
			var v any
			if json.Unmarshal(resp.Body, &v) == nil {
				value["json"] = v
			}
		}
		b.WriteString(body)
	} else {
		fmt.Fprintf(&b, "[binary body of %d bytes not shown]", len(resp.Body))
	}
	if resp.Truncated {
		fmt.Fprintf(&b, "\n[body truncated at %d bytes]", len(resp.Body))
	}
	return &Result{Text: b.String(), Value: value, Truncated: resp.Truncated,
		Meta: map[string]any{"addr": resp.Addr, "status": resp.Status}}
}

func textual(ctype string, body []byte) bool {
	mt, _, _ := mime.ParseMediaType(ctype)
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "json"), strings.HasSuffix(mt, "xml"), mt == "application/javascript":
		return true
	case mt == "":
		return utf8.Valid(body) && !looksBinary(body)
	}
	return false
}
