package provider

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		headers map[string]string
		want    time.Duration
		ok      bool
	}{
		{map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{map[string]string{"Retry-After": " 0 "}, 0, true},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0, true},
		{map[string]string{"Retry-After": "-3"}, 0, false},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{map[string]string{"Retry-After": "1e99"}, 0, false},
		{map[string]string{"retry-after-ms": "250", "Retry-After": "1"}, 250 * time.Millisecond, true},
		{map[string]string{"retry-after-ms": "x", "Retry-After": "1"}, time.Second, true},
		{nil, 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.headers {
			h.Set(k, v)
		}
		got, ok := parseRetryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%v: got %v %v, want %v %v", tt.headers, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	for n, wantMax := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 500 * time.Millisecond, 60: 500 * time.Millisecond} {
		for range 50 {
			d := backoff(n, 100*time.Millisecond, 500*time.Millisecond)
			if d < wantMax/2 || d > wantMax {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, wantMax/2, wantMax)
			}
		}
	}
	if backoff(3, 0, time.Second) != 0 {
		t.Error("a zero base gives no wait")
	}
}

func TestRetryableStatus(t *testing.T) {
	for code, want := range map[int]bool{400: false, 401: false, 403: false, 404: false, 408: true, 409: false, 422: false, 425: true, 429: true, 500: true, 502: true, 503: true, 504: true, 529: true} {
		if retryableStatus(code) != want {
			t.Errorf("%d: retryable %v, want %v", code, !want, want)
		}
	}
}

func TestSleepCtx(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
	if err := sleepCtx(context.Background(), time.Millisecond); err != nil {
		t.Error(err)
	}
}
