package provider

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryable reports whether an HTTP status is worth asking again: rate
// limits (429), timeouts (408), "too early" (425) and every server-side
// failure, including Anthropic's 529 "overloaded". A 4xx other than those
// means the request itself is wrong and would fail again.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return code >= 500
}

// backoff is the wait before retry number n (1 for the first retry):
// base doubled per retry, capped at max, with the upper half jittered so
// that parallel branches hitting the same rate limit do not retry in step.
func backoff(n int, base, max time.Duration) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	return d/2 + rand.N(d/2+1)
}

// parseRetryAfter reads how long the server asks the client to wait: the
// non-standard "retry-after-ms" (milliseconds, sent by OpenAI) first, then
// "Retry-After" as seconds or as an HTTP date (RFC 9110 §10.2.3). A date in
// the past means "now" (a wait of 0, reported as present).
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleepCtx waits for d or until ctx is done, whichever comes first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
