package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdef"

// clearRemoteEnv keeps the machine's own keys and base URLs out of a test.
func clearRemoteEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} {
		t.Setenv(v, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// fastRemote returns remote options for tests: tiny waits, short
// timeouts, and a request timeout long enough for a loaded machine.
func fastRemote() RemoteOptions {
	return RemoteOptions{
		OpenAIKey: testKey, AnthropicKey: testKey,
		Timeout: 5 * time.Second, IdleTimeout: 2 * time.Second,
		MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxRetryAfter: 5 * time.Millisecond,
	}
}

// writeSSE writes each data payload as one event and flushes it, so the
// client sees the chunks arrive separately.
func writeSSE(w http.ResponseWriter, payloads ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	for _, p := range payloads {
		fmt.Fprintf(w, "data: %s\n\n", p)
		if f != nil {
			f.Flush()
		}
	}
}

// recorded is what a test server saw.
type recorded struct {
	mu     sync.Mutex
	bodies []map[string]any
	heads  []http.Header
	paths  []string
}

func (r *recorded) add(req *http.Request, b []byte) {
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies = append(r.bodies, m)
	r.heads = append(r.heads, req.Header.Clone())
	r.paths = append(r.paths, req.URL.Path)
}

func (r *recorded) last() (map[string]any, http.Header, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.bodies) - 1
	return r.bodies[n], r.heads[n], r.paths[n]
}

// server answers each request with the next handler (the last repeats).
func server(t *testing.T, rec *recorded, handlers ...http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		// Read the body first, or the server notices no disconnect; the
		// handler gets a copy.
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		if rec != nil {
			rec.add(r, b)
		}
		handlers[min(i, len(handlers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func status(code int, headers map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// okOpenAI streams a short plain answer.
func okOpenAI(w http.ResponseWriter, _ *http.Request) {
	writeSSE(w, `{"model":"m","choices":[{"index":0,"delta":{"content":"fine"}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `[DONE]`)
}

// testOpenAI builds an openai provider against url whose waits are
// recorded instead of slept.
func testOpenAI(t *testing.T, url string, mod func(*Options)) (*OpenAI, *[]time.Duration) {
	t.Helper()
	clearRemoteEnv(t)
	opts := Options{Model: "m", Remote: fastRemote()}
	opts.Remote.OpenAIBaseURL = url
	if mod != nil {
		mod(&opts)
	}
	p, err := NewOpenAI(opts)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	var mu sync.Mutex
	p.r.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return ctx.Err()
	}
	p.r.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	return p, &waits
}

func TestRemoteRetries(t *testing.T) {
	date := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(10 * time.Second)
	tests := []struct {
		name      string
		first     http.HandlerFunc
		maxAfter  time.Duration
		wantCalls int32
		wantWait  time.Duration // 0: a backoff between 0.5 and 1 ms
		wantErr   string        // "": the retry succeeds
		retryable bool
	}{
		{name: "429 retry-after seconds", first: status(429, map[string]string{"Retry-After": "1"}, `{"error":{"message":"slow down"}}`),
			maxAfter: 2 * time.Second, wantCalls: 2, wantWait: time.Second},
		{name: "429 retry-after capped", first: status(429, map[string]string{"Retry-After": "120"}, `{}`),
			wantCalls: 2, wantWait: 5 * time.Millisecond},
		{name: "429 retry-after http date", first: status(429, map[string]string{"Retry-After": date.Format(http.TimeFormat)}, `{}`),
			maxAfter: time.Minute, wantCalls: 2, wantWait: 10 * time.Second},
		{name: "429 retry-after-ms", first: status(429, map[string]string{"retry-after-ms": "3"}, `{}`),
			wantCalls: 2, wantWait: 3 * time.Millisecond},
		{name: "500 then success", first: status(500, nil, `oops`), wantCalls: 2},
		{name: "529 overloaded", first: status(529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), wantCalls: 2},
		{name: "400 not retried", first: status(400, nil, `{"error":{"message":"bad field","type":"invalid_request_error"}}`),
			wantCalls: 1, wantErr: "HTTP 400 Bad Request: bad field (invalid_request_error)"},
		{name: "404 hint", first: status(404, nil, `{"error":{"message":"no such model"}}`),
			wantCalls: 1, wantErr: "check the model name and OPENAI_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := server(t, nil, tt.first, okOpenAI)
			p, waits := testOpenAI(t, srv.URL, func(o *Options) {
				if tt.maxAfter > 0 {
					o.Remote.MaxRetryAfter = tt.maxAfter
				}
			})
			resp, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
			if calls.Load() != tt.wantCalls {
				t.Errorf("%d calls, want %d", calls.Load(), tt.wantCalls)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || IsRetryable(err) != tt.retryable {
					t.Fatalf("err = %v, want %q (retryable %v)", err, tt.wantErr, tt.retryable)
				}
				return
			}
			if err != nil || resp.Text != "fine" {
				t.Fatalf("got %q, %v", resp.Text, err)
			}
			if len(*waits) != 1 {
				t.Fatalf("waits %v, want one", *waits)
			}
			got := (*waits)[0]
			if tt.wantWait > 0 && got != tt.wantWait || tt.wantWait == 0 && tt.maxAfter == 0 && (got < 500*time.Microsecond || got > time.Millisecond) {
				t.Errorf("waited %v, want %v", got, tt.wantWait)
			}
		})
	}
}

func TestRemoteRetriesExhausted(t *testing.T) {
	srv, calls := server(t, nil, status(503, map[string]string{"Retry-After": "0"}, `{"error":{"message":"busy"}}`))
	var retries []int
	p, _ := testOpenAI(t, srv.URL, func(o *Options) {
		o.Remote.OnRetry = func(attempt int, _ time.Duration, reason string) {
			retries = append(retries, attempt)
			if !strings.Contains(reason, "503") {
				t.Errorf("reason %q", reason)
			}
		}
	})
	_, err := p.Complete(context.Background(), Request{Node: "n", Call: 2}, nil)
	var ce *CallError
	if !errors.As(err, &ce) || !ce.Retryable || ce.Provider != "openai" || ce.Node != "n" || ce.Call != 2 {
		t.Fatalf("err = %#v, want a retryable CallError", err)
	}
	if !strings.Contains(ce.Message, "gave up after 3 attempts") || !strings.Contains(ce.Message, "busy") {
		t.Errorf("message %q", ce.Message)
	}
	if calls.Load() != 3 || fmt.Sprint(retries) != "[1 2]" {
		t.Errorf("%d calls, retries %v", calls.Load(), retries)
	}
}

func TestRemoteRetryWaitCancelled(t *testing.T) {
	srv, _ := server(t, nil, status(429, map[string]string{"Retry-After": "30"}, `{}`))
	clearRemoteEnv(t)
	opts := Options{Model: "m", Remote: fastRemote()}
	opts.Remote.OpenAIBaseURL, opts.Remote.MaxRetryAfter = srv.URL, time.Minute
	p, err := NewOpenAI(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = p.Complete(ctx, Request{Node: "n"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v, want the context's deadline promptly", err, time.Since(start))
	}
}

func TestRemoteIdleTimeout(t *testing.T) {
	stall := func(w http.ResponseWriter, r *http.Request) {
		writeSSE(w, `{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`)
		<-r.Context().Done()
	}
	srv, calls := server(t, nil, stall)
	p, _ := testOpenAI(t, srv.URL, func(o *Options) { o.Remote.IdleTimeout = 50 * time.Millisecond })
	var pieces []string
	start := time.Now()
	_, err := p.Complete(context.Background(), Request{Node: "n"}, func(s string) { pieces = append(pieces, s) })
	if err == nil || !strings.Contains(err.Error(), "stream stalled: no data for 50ms") || !IsRetryable(err) {
		t.Fatalf("err = %v, want a retryable stall", err)
	}
	if !strings.Contains(err.Error(), "part of the answer was streamed") || calls.Load() != 1 {
		t.Errorf("a stall after streaming must not be retried here: %d calls, %v", calls.Load(), err)
	}
	if fmt.Sprint(pieces) != "[Hel]" || time.Since(start) > 3*time.Second {
		t.Errorf("pieces %v after %v", pieces, time.Since(start))
	}

	// A slow but steady stream outlasts the idle timeout: each chunk
	// re-arms it. (The stream as a whole takes longer than the timeout;
	// the gaps leave a loaded machine a wide margin.)
	srv, _ = server(t, nil, func(w http.ResponseWriter, _ *http.Request) {
		for i := range 8 {
			writeSSE(w, fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"%d"}}]}`, i))
			time.Sleep(300 * time.Millisecond)
		}
		writeSSE(w, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `[DONE]`)
	})
	p, _ = testOpenAI(t, srv.URL, func(o *Options) { o.Remote.IdleTimeout, o.Remote.MaxAttempts = 1500*time.Millisecond, 1 })
	if resp, err := p.Complete(context.Background(), Request{Node: "n"}, nil); err != nil || resp.Text != "01234567" {
		t.Fatalf("steady stream: %q, %v", resp.Text, err)
	}

	// A stall before the first token is retried.
	silent := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	srv, calls = server(t, nil, silent, okOpenAI)
	p, _ = testOpenAI(t, srv.URL, func(o *Options) { o.Remote.IdleTimeout = 50 * time.Millisecond })
	resp, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
	if err != nil || resp.Text != "fine" || calls.Load() != 2 {
		t.Fatalf("got %q, %v after %d calls", resp.Text, err, calls.Load())
	}
}

func TestRemoteRequestTimeout(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}
	srv, _ := server(t, nil, slow)
	p, _ := testOpenAI(t, srv.URL, func(o *Options) { o.Remote.Timeout, o.Remote.MaxAttempts = 50*time.Millisecond, 1 })
	_, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
	if err == nil || !strings.Contains(err.Error(), "within 50ms (the request timeout)") || !IsRetryable(err) {
		t.Fatalf("err = %v, want a retryable request timeout", err)
	}
}

func TestRemoteCallerCancel(t *testing.T) {
	srv, _ := server(t, nil, func(w http.ResponseWriter, r *http.Request) {
		writeSSE(w, `{"choices":[{"index":0,"delta":{"content":"a"}}]}`)
		<-r.Context().Done()
	})
	p, _ := testOpenAI(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := p.Complete(ctx, Request{Node: "n"}, func(string) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := p.Complete(ctx, Request{Node: "n"}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("already cancelled: err = %v", err)
	}
}

func TestRemoteKeyRedaction(t *testing.T) {
	echo := status(401, nil, `{"error":{"message":"Incorrect API key provided: `+testKey+`. Also sk-proj-abc***xyz1"}}`)
	srv, _ := server(t, nil, echo)
	p, _ := testOpenAI(t, srv.URL, nil)
	_, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	if strings.Contains(msg, testKey) || strings.Contains(msg, "abc***") || !strings.Contains(msg, "[REDACTED]") {
		t.Errorf("key not redacted: %q", msg)
	}
	if !strings.Contains(msg, "check OPENAI_API_KEY") || IsRetryable(err) {
		t.Errorf("message %q should name the variable and not be retryable", msg)
	}
	if s := fmt.Sprintf("%v %+v", p, p); strings.Contains(s, testKey) {
		t.Errorf("printing the provider shows the key: %s", s)
	}
	opts := Options{Remote: fastRemote()}
	j, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", opts, opts, opts, j); strings.Contains(s, testKey) || !strings.Contains(s, "[REDACTED]") {
		t.Errorf("printing or encoding the options shows the key: %s", s)
	}

	// A stream error that quotes the key is redacted too, and so is a
	// password in a base URL.
	srv, _ = server(t, nil, func(w http.ResponseWriter, _ *http.Request) {
		writeSSE(w, `{"error":{"message":"bad key `+testKey+`"}}`)
	})
	p, _ = testOpenAI(t, srv.URL, func(o *Options) { o.Remote.MaxAttempts = 1 })
	if _, err := p.Complete(context.Background(), Request{Node: "n"}, nil); err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("stream error: %v", err)
	}
	clearRemoteEnv(t)
	_, err = NewOpenAI(Options{Remote: RemoteOptions{OpenAIKey: testKey, OpenAIBaseURL: "ftp://user:hunter2@example.com"}})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("bad base URL: %v", err)
	}
}

func TestRemoteMissingKey(t *testing.T) {
	clearRemoteEnv(t)
	for _, tt := range []struct {
		name string
		make func(Options) error
		env  string
	}{
		{"openai", func(o Options) error { _, err := NewOpenAI(o); return err }, "OPENAI_API_KEY"},
		{"anthropic", func(o Options) error { _, err := NewAnthropic(o); return err }, "ANTHROPIC_API_KEY"},
	} {
		err := tt.make(Options{})
		if !errors.Is(err, ErrMissingKey) || !strings.Contains(err.Error(), tt.env) {
			t.Errorf("%s: err = %v, want ErrMissingKey naming %s", tt.name, err, tt.env)
		}
		// The environment supplies the key.
		t.Setenv(tt.env, "k-from-env")
		if err := tt.make(Options{}); err != nil {
			t.Errorf("%s with %s set: %v", tt.name, tt.env, err)
		}
		t.Setenv(tt.env, "")
	}
	if got := EnvVars(" anthropic "); fmt.Sprint(got) != "[ANTHROPIC_API_KEY ANTHROPIC_BASE_URL]" || EnvVars("mock") != nil {
		t.Errorf("EnvVars: %v", got)
	}
	// A server on this machine needs no key, and gets no Authorization.
	rec := &recorded{}
	srv, _ := server(t, rec, okOpenAI)
	p, err := NewOpenAI(Options{Model: "llama3", Remote: RemoteOptions{OpenAIBaseURL: srv.URL + "/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), Request{Node: "n"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, h, _ := rec.last(); h.Get("Authorization") != "" {
		t.Errorf("sent Authorization %q without a key", h.Get("Authorization"))
	}
}

func TestRemoteEnvPrecedence(t *testing.T) {
	rec := &recorded{}
	srv, _ := server(t, rec, okOpenAI)
	clearRemoteEnv(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/env")
	t.Setenv("OPENAI_API_KEY", "env-key")
	p, err := NewOpenAI(Options{Model: "m", Remote: RemoteOptions{OpenAIKey: "config-key", OpenAIBaseURL: "http://192.0.2.1/config"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), Request{Node: "n"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, h, path := rec.last(); path != "/env/chat/completions" || h.Get("Authorization") != "Bearer env-key" {
		t.Errorf("path %q auth %q: the environment should win over the config", path, h.Get("Authorization"))
	}
}

func TestRemoteNoModel(t *testing.T) {
	srv, calls := server(t, nil, okOpenAI)
	p, _ := testOpenAI(t, srv.URL, func(o *Options) { o.Model = "" })
	_, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
	if err == nil || !strings.Contains(err.Error(), "--model") || IsRetryable(err) || calls.Load() != 0 {
		t.Fatalf("err = %v after %d calls", err, calls.Load())
	}
}

// A server that answers with a web page, or with JSON that is not an
// answer, fails the call for good; a plain JSON answer is read whole
// (streamed answers are the norm, but not every server streams).
func TestRemoteNotAStream(t *testing.T) {
	srv, _ := server(t, nil, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>login</html>")
	})
	p, _ := testOpenAI(t, srv.URL, nil)
	_, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
	if err == nil || !strings.Contains(err.Error(), "instead of an event stream or JSON") || IsRetryable(err) {
		t.Fatalf("err = %v", err)
	}
	srv, _ = server(t, nil, status(200, nil, `{"choices":[]}`))
	p, _ = testOpenAI(t, srv.URL, nil)
	if _, err := p.Complete(context.Background(), Request{Node: "n"}, nil); err == nil || !strings.Contains(err.Error(), "without any choice") {
		t.Fatalf("err = %v", err)
	}
	srv, _ = server(t, nil, status(200, nil, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"R&D is up"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":3}}`))
	p, _ = testOpenAI(t, srv.URL, nil)
	var streamed strings.Builder
	resp, err := p.Complete(context.Background(), Request{Node: "n"}, func(s string) { streamed.WriteString(s) })
	if err != nil || resp.Text != "R&D is up" || streamed.String() != resp.Text || resp.Usage.InputTokens != 7 || resp.Usage.OutputTokens != 3 {
		t.Fatalf("whole JSON answer: %+v %v (streamed %q)", resp, err, streamed.String())
	}
}

func TestRemoteUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	p, _ := testOpenAI(t, url, nil)
	_, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot reach") || !IsRetryable(err) || !strings.Contains(err.Error(), "gave up after 3") {
		t.Fatalf("err = %v", err)
	}
}

func TestPriceUsage(t *testing.T) {
	prices := map[string]Price{"gpt-x": {InputPerMTok: 2, OutputPerMTok: 8}, "claude-y": {InputPerMTok: 3, OutputPerMTok: 15}}
	tests := []struct {
		requested, served string
		cost              float64
		unknown           bool
	}{
		{"gpt-x", "gpt-x-2026-01-01", 0.002*1 + 0.008*0.5, false},
		{"alias", "claude-y", 0.003 + 0.015*0.5, false},
		{"other", "other-1", 0, true},
		{"", "", 0, true},
	}
	for _, tt := range tests {
		u := priceUsage(Usage{InputTokens: 1000, OutputTokens: 500}, prices, tt.requested, tt.served)
		if diff := u.CostUSD - tt.cost; diff > 1e-12 || diff < -1e-12 || u.CostUnknown != tt.unknown {
			t.Errorf("%s/%s: %+v, want cost %g unknown %v", tt.requested, tt.served, u, tt.cost, tt.unknown)
		}
	}
}

func TestRemoteConcurrent(t *testing.T) {
	srv, calls := server(t, nil, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		q := body.Messages[len(body.Messages)-1].Content
		writeSSE(w, `{"choices":[{"index":0,"delta":{"content":"echo "}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"`+q+`"},"finish_reason":"stop"}]}`, `[DONE]`)
	})
	p, _ := testOpenAI(t, srv.URL, nil)
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			var pieces strings.Builder
			q := fmt.Sprintf("q%d", i)
			resp, err := p.Complete(context.Background(), Request{Node: "n", Call: i, Messages: userMsg(q)}, func(s string) { pieces.WriteString(s) })
			if err == nil && (resp.Text != "echo "+q || pieces.String() != resp.Text) {
				err = fmt.Errorf("call %d: %q / %q", i, resp.Text, pieces.String())
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if calls.Load() != 16 {
		t.Errorf("%d calls", calls.Load())
	}
}
