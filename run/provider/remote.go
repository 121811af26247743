package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/agentlab/agentlab/run/redact"
)

// RemoteOptions configure the providers that call a model API over HTTP.
// Keys and base URLs are normally filled in by the CLI from the config
// file; the environment variables (OPENAI_API_KEY, OPENAI_BASE_URL,
// ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) take precedence over them, as
// environment beats config files everywhere in agentlab. Zero durations
// and counts mean the defaults below.
type RemoteOptions struct {
	// The keys are never encoded (json:"-") nor printed (see String).
	OpenAIKey        string `json:"-"`
	OpenAIBaseURL    string `json:"openai_base_url,omitempty"`
	AnthropicKey     string `json:"-"`
	AnthropicBaseURL string `json:"anthropic_base_url,omitempty"`

	// Timeout bounds one attempt, from sending the request to the end of
	// the streamed answer (default 10 minutes).
	Timeout time.Duration
	// IdleTimeout bounds the silence within a stream: no byte for this
	// long and the attempt fails as stalled (default 2 minutes, which
	// leaves room for models that reason before their first token).
	IdleTimeout time.Duration
	// HeaderTimeout bounds the wait for the response headers: a server
	// that accepts the connection and then says nothing fails the attempt
	// after this long instead of after Timeout (default 2 minutes).
	HeaderTimeout time.Duration
	// MaxAttempts is how many times one call is tried in all (default 4;
	// 1 disables retries). Only rate limits, server errors, timeouts and
	// broken connections are retried, and only while nothing of the answer
	// has been streamed yet.
	MaxAttempts int
	// BaseDelay is the wait before the first retry, doubled for each
	// further one up to MaxDelay (defaults 1 s and 30 s).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter caps how long a server's Retry-After is honoured
	// (default 60 s): a longer request is shortened to the cap.
	MaxRetryAfter time.Duration
	// HTTPClient sends the requests (default: a client without a global
	// timeout, since Timeout and IdleTimeout bound each attempt).
	HTTPClient *http.Client `json:"-"`
	// OnRetry, when set, is told about each retry before its wait: the
	// attempt that failed (1-based), the wait, and why (keys redacted).
	OnRetry func(attempt int, wait time.Duration, reason string) `json:"-"`
}

// RetryInfo is one retry of a call, told to the observer WithRetryObserver
// put in the call's context.
type RetryInfo struct {
	Node    string
	Call    int
	Attempt int           // the attempt that failed, from 1
	Wait    time.Duration // before the next attempt
	Status  int           // HTTP status of the failure; 0 without one
	Reason  string        // keys redacted
}

type retryObserverKey struct{}

// WithRetryObserver returns ctx with f told about every retry of a call
// made with it, so that a caller can record retries per call.
func WithRetryObserver(ctx context.Context, f func(RetryInfo)) context.Context {
	return context.WithValue(ctx, retryObserverKey{}, f)
}

// retried tells the options' OnRetry and the context's observer.
func (r *remote) retried(ctx context.Context, req Request, attempt int, wait time.Duration, ae *attemptError) {
	reason := r.redact(ae.msg)
	if r.opts.OnRetry != nil {
		r.opts.OnRetry(attempt, wait, reason)
	}
	if f, ok := ctx.Value(retryObserverKey{}).(func(RetryInfo)); ok && f != nil {
		f(RetryInfo{Node: req.Node, Call: req.Call, Attempt: attempt, Wait: wait, Status: ae.status, Reason: reason})
	}
}

// String describes o with its keys redacted, so that printing options
// (with %v or %+v, also inside Options) never shows a key.
func (o RemoteOptions) String() string {
	shown := func(k string) string {
		if k == "" {
			return "unset"
		}
		return "[REDACTED]"
	}
	return fmt.Sprintf("{openai %s key %s, anthropic %s key %s, timeout %v, idle %v, attempts %d, delay %v..%v, retry-after cap %v}",
		redactURLString(o.OpenAIBaseURL), shown(o.OpenAIKey), redactURLString(o.AnthropicBaseURL), shown(o.AnthropicKey),
		o.Timeout, o.IdleTimeout, o.MaxAttempts, o.BaseDelay, o.MaxDelay, o.MaxRetryAfter)
}

// GoString keeps %#v from showing the keys either.
func (o RemoteOptions) GoString() string { return "provider.RemoteOptions" + o.String() }

// Defaults of RemoteOptions.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultTimeout          = 10 * time.Minute
	DefaultIdleTimeout      = 2 * time.Minute
	DefaultHeaderTimeout    = 2 * time.Minute
	DefaultMaxAttempts      = 4
	DefaultBaseDelay        = time.Second
	DefaultMaxDelay         = 30 * time.Second
	DefaultMaxRetryAfter    = 60 * time.Second
)

// ErrMissingKey is returned (wrapped) by New when a remote provider has no
// API key.
var ErrMissingKey = errors.New("missing API key")

// withDefaults fills the zero fields of o.
func (o RemoteOptions) withDefaults() RemoteOptions {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = DefaultHeaderTimeout
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = DefaultBaseDelay
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	return o
}

// setting picks the environment variable when it is set, else the
// configured value, else the default.
func setting(env, configured, def string) string {
	if v := strings.TrimSpace(os.Getenv(env)); v != "" {
		return v
	}
	if v := strings.TrimSpace(configured); v != "" {
		return v
	}
	return def
}

// protocol is what differs between the chat APIs: the request body, the
// authentication headers and the reading of the event stream.
type protocol interface {
	body(req Request, model string) ([]byte, error)
	header(h http.Header, key string)
	decode(events *sseReader, res *streamResult, emit func(string)) error
	// decodeWhole reads an answer sent as one JSON body (whole.go).
	decodeWhole(raw []byte, res *streamResult, emit func(string)) error
}

// adapter is a protocol that can change its request when the server
// refuses an optional parameter; see openaiProto.adapt.
type adapter interface {
	adapt(msg string) bool
}

// streamResult collects one streamed answer.
type streamResult struct {
	text      strings.Builder
	reasoning int  // characters of reasoning or thinking, never shown
	thought   bool // a thinking block was opened, even an empty or redacted one
	toolCalls []ToolCall
	usage     Usage
	haveUsage bool
	model     string
	stop      string // a Stop constant, "" until the server says
	rawStop   string // the server's own word for it
	done      bool   // the server marked the end of the stream
}

// attemptError is one failed attempt before it becomes a CallError.
type attemptError struct {
	msg        string
	retryable  bool
	retryAfter time.Duration
	hasAfter   bool
	// feedback, when set, is what the model is told on the next attempt,
	// after its own answer (answer): the request is not sent again as it
	// was, since the same request tends to get the same wrong answer.
	feedback string
	answer   string
	status   int // the HTTP status, when the server answered with one
}

func (e *attemptError) Error() string { return e.msg }

func failf(retryable bool, format string, args ...any) *attemptError {
	return &attemptError{msg: fmt.Sprintf(format, args...), retryable: retryable}
}

// remote is the HTTP machinery the openai and anthropic providers share:
// retries, timeouts, error reading, redaction, usage and cost.
type remote struct {
	name     string
	keyEnv   string
	baseEnv  string
	key      string
	endpoint *url.URL
	model    string
	prices   map[string]Price
	opts     RemoteOptions
	proto    protocol
	cache    cacheRates // default cache prices (prices.go)
	// sleep and now are replaced in tests to observe waits without
	// waiting.
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
}

// newRemote resolves key and base URL and checks them. A key is required
// except for a server on this machine (Ollama, vLLM, llama.cpp), which
// usually needs none.
func newRemote(name, keyEnv, baseEnv, key, base, path string, opts Options, proto protocol) (*remote, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("provider %s: base URL %q is not an http(s) URL; set %s to the API's base, such as %s",
			name, redactURLString(base), baseEnv, map[string]string{"openai": DefaultOpenAIBaseURL, "anthropic": DefaultAnthropicBaseURL}[name])
	}
	redact.Add(key)     // never stored or printed, whatever echoes it
	redact.AddURL(base) // nor a password or ?api-key= in the base URL
	if key == "" && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("%w: provider %s needs an API key; set %s in the environment (or in the config file) and run again",
			ErrMissingKey, name, keyEnv)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, path) {
		u.Path += path
	}
	u.RawPath = ""
	return &remote{
		name: name, keyEnv: keyEnv, baseEnv: baseEnv, key: key, endpoint: u,
		model: opts.Model, prices: opts.Prices, opts: opts.Remote.withDefaults(), proto: proto,
		sleep: sleepCtx, now: time.Now, cache: plainCacheRates,
	}, nil
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// statusOverloaded is Anthropic's (and some gateways') "overloaded"
// status, which net/http has no name for.
const statusOverloaded = 529

// marshalBody encodes a request body without HTML escaping: a tool
// result or a prompt saying "R&D" or "<b>" reaches the model as written,
// not as "R\u0026D".
func marshalBody(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// maxWholeBody bounds an answer sent as one JSON body.
const maxWholeBody = 32 << 20

// Sentinel causes that tell a timeout of ours from a cancellation by the
// caller.
var (
	errStalled        = errors.New("stream stalled")
	errRequestTimeout = errors.New("request timed out")
	errHeaderTimeout  = errors.New("no response headers")
)

// complete answers req, retrying failed attempts as RemoteOptions allow.
// With an output schema or labels the answer is buffered, checked and
// only then streamed, so that the streamed pieces always add up to the
// returned text.
func (r *remote) complete(ctx context.Context, req Request, onToken func(string)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	model := req.Model
	if model == "" {
		model = r.model
	}
	if model == "" {
		return Response{}, r.callError(req, "no model name: set model: on the node or run with --model", false)
	}
	body, err := r.proto.body(req, model)
	if err != nil {
		return Response{}, r.callError(req, "the request cannot be encoded: "+err.Error(), false)
	}
	buffered := req.OutputSchema != nil || len(req.Labels) > 0
	emitted := false
	adaptations := 0
	emit := func(s string) {
		if s == "" || onToken == nil || buffered {
			return
		}
		emitted = true
		onToken(s)
	}
	// spent is what the failed attempts of this call cost: a server bills
	// an answer that is then refused here (not JSON, cut off) as much as
	// one that is used.
	var spent Usage
	for attempt := 1; ; attempt++ {
		res := &streamResult{}
		var resp Response
		err := r.attempt(ctx, body, res, emit)
		if err == nil {
			resp, err = r.finish(req, model, res)
		}
		if err == nil {
			resp.Usage = addSpent(resp.Usage, spent)
			if buffered {
				if err := stream(ctx, resp.Text, onToken); err != nil {
					return Response{}, billed(err, resp.Usage)
				}
			}
			return resp, nil
		}
		if res.haveUsage {
			u := res.usage
			if u.OutputTokens == 0 && res.text.Len() > 0 {
				u.OutputTokens = EstimateTokens(res.text.String())
			}
			spent = addSpent(spent, priceUsageAt(u, r.prices, model, res.model, r.cache))
		}
		if ctx.Err() != nil {
			return Response{}, billed(ctx.Err(), spent)
		}
		var ae *attemptError
		if !errors.As(err, &ae) {
			ae = failf(false, "%v", err)
		}
		if a, ok := r.proto.(adapter); ok && !ae.retryable && !emitted && adaptations < 3 && a.adapt(ae.msg) {
			// The server refused an optional parameter: ask again at
			// once without it. This does not count as an attempt.
			adaptations++
			attempt--
			if body, err = r.proto.body(req, model); err != nil {
				return Response{}, r.callError(req, "the request cannot be encoded: "+err.Error(), false)
			}
			continue
		}
		if !ae.retryable || emitted || attempt >= r.opts.MaxAttempts {
			msg := ae.msg
			switch {
			case ae.retryable && emitted:
				msg += " (after part of the answer was streamed, so it was not retried here)"
			case ae.retryable && attempt > 1:
				msg += fmt.Sprintf(" (gave up after %d attempts)", attempt)
			}
			return Response{}, billed(r.callError(req, msg, ae.retryable), spent)
		}
		if ae.feedback != "" {
			// Tell the model what was wrong with its answer, and ask at
			// once: this is a repair turn, not a server failure to wait out.
			req.Messages = append(append([]Message(nil), req.Messages...),
				Message{Role: RoleAssistant, Content: ae.answer}, Message{Role: RoleUser, Content: ae.feedback})
			if body, err = r.proto.body(req, model); err != nil {
				return Response{}, billed(r.callError(req, "the request cannot be encoded: "+err.Error(), false), spent)
			}
			r.retried(ctx, req, attempt, 0, ae)
			continue
		}
		wait := backoff(attempt, r.opts.BaseDelay, r.opts.MaxDelay)
		if ae.hasAfter {
			wait = min(ae.retryAfter, r.opts.MaxRetryAfter)
		}
		r.retried(ctx, req, attempt, wait, ae)
		if err := r.sleep(ctx, wait); err != nil {
			return Response{}, billed(err, spent)
		}
	}
}

// attempt sends the request once and reads the streamed answer into res.
func (r *remote) attempt(ctx context.Context, body []byte, res *streamResult, emit func(string)) error {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tctx, cancelT := context.WithTimeoutCause(actx, r.opts.Timeout, errRequestTimeout)
	defer cancelT()
	hresp, err := r.send(ctx, tctx, cancel, body, "text/event-stream", func(h http.Header) { r.proto.header(h, r.key) })
	if err != nil {
		return err
	}
	defer hresp.Body.Close()
	if ct := hresp.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "text/event-stream") {
		if !strings.Contains(ct, "json") {
			peek, _ := io.ReadAll(io.LimitReader(hresp.Body, 512))
			return failf(false, "the server answered with %q instead of an event stream or JSON (%s); check %s: it must point at a chat API, such as %s",
				ct, excerpt(string(peek)), r.baseEnv, r.endpoint.Redacted())
		}
		raw, err := io.ReadAll(io.LimitReader(hresp.Body, maxWholeBody+1))
		if err != nil {
			return r.readError(ctx, tctx, err)
		}
		if len(raw) > maxWholeBody {
			return failf(false, "the server's JSON answer is larger than %d bytes", maxWholeBody)
		}
		return r.proto.decodeWhole(raw, res, emit)
	}
	idle := newIdleReader(hresp.Body, r.opts.IdleTimeout, func() { cancel(errStalled) })
	defer idle.stop()
	err = r.proto.decode(newSSEReader(idle), res, emit)
	if err != nil {
		var ae *attemptError
		if errors.As(err, &ae) {
			return ae
		}
		return r.readError(ctx, tctx, err)
	}
	return nil
}

// transportError explains a failure to connect or to read: a timeout of
// ours, a stalled stream, a cancellation by the caller, or the network.
// send posts body once under tctx (the request timeout) and returns a
// response with a 2xx status, or the attempt's error: a header timer
// cancels the attempt through cancel when the server says nothing at all,
// and is stopped as soon as the headers are in. The caller closes the body.
func (r *remote) send(ctx, tctx context.Context, cancel context.CancelCauseFunc, body []byte, accept string, auth func(http.Header)) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(tctx, http.MethodPost, r.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return nil, failf(false, "cannot build the request: %v", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", accept)
	auth(hreq.Header)
	headers := time.AfterFunc(r.opts.HeaderTimeout, func() { cancel(errHeaderTimeout) })
	hresp, err := r.opts.HTTPClient.Do(hreq)
	headers.Stop()
	if err != nil {
		if context.Cause(tctx) == errRequestTimeout {
			return nil, failf(true, "the server did not answer within %v (the request timeout); check that it is up and not overloaded", r.opts.Timeout)
		}
		return nil, r.transportError(ctx, tctx, err)
	}
	if hresp.StatusCode/100 != 2 {
		defer hresp.Body.Close()
		return nil, r.statusError(hresp)
	}
	return hresp, nil
}

func (r *remote) transportError(parent, ctx context.Context, err error) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	switch context.Cause(ctx) {
	case errStalled:
		return failf(true, "the stream stalled: no data for %v (the idle timeout); the server may be overloaded", r.opts.IdleTimeout)
	case errHeaderTimeout:
		return failf(true, "the server accepted the request but sent no response within %v (the header timeout); it may be overloaded — raise header_timeout for a slow local server", r.opts.HeaderTimeout)
	case errRequestTimeout:
		return failf(true, "no complete answer within %v (the request timeout); raise the timeout or ask for a shorter answer", r.opts.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return failf(true, "the connection closed in the middle of the answer")
	}
	return failf(true, "cannot reach %s: %v; check %s and the network", r.endpoint.Redacted(), err, r.baseEnv)
}

// readError explains a failure while reading the stream.
func (r *remote) readError(parent, ctx context.Context, err error) error {
	if c := context.Cause(ctx); parent.Err() != nil || c == errStalled || c == errRequestTimeout || c == errHeaderTimeout {
		return r.transportError(parent, ctx, err)
	}
	if errors.Is(err, errSSETooLarge) {
		return failf(false, "%v", err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return failf(true, "the connection closed in the middle of the answer")
	}
	return failf(true, "reading the answer failed: %v", err)
}

// statusError reads an error response: its status, the server's message
// (both APIs wrap it as {"error": {"message": …}}) and, for 429 and 5xx,
// the Retry-After.
func (r *remote) statusError(hresp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(hresp.Body, 64<<10))
	msg := apiErrorMessage(raw)
	if msg == "" {
		msg = excerpt(string(raw))
	}
	hint := ""
	switch hresp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = fmt.Sprintf("; check %s", r.keyEnv)
	case http.StatusNotFound:
		hint = fmt.Sprintf("; check the model name and %s (now %s)", r.baseEnv, r.endpoint.Redacted())
	case http.StatusTooManyRequests:
		hint = "; the provider's rate limit or quota was reached"
	case statusOverloaded:
		hint = "; the provider is overloaded, not your request"
	}
	text := http.StatusText(hresp.StatusCode)
	if hresp.StatusCode == statusOverloaded {
		text = "Overloaded"
	}
	ae := failf(retryableStatus(hresp.StatusCode), "HTTP %d %s: %s%s", hresp.StatusCode, text, msg, hint)
	ae.status = hresp.StatusCode
	if ae.retryable {
		ae.retryAfter, ae.hasAfter = parseRetryAfter(hresp.Header, r.now())
	}
	return ae
}

// apiErrorMessage extracts the message of an error body of either API:
// {"error": {"message", "type", "code"}} or {"error": "text"}.
func apiErrorMessage(raw []byte) string {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(body.Error, &obj) == nil && obj.Message != "" {
		if obj.Type != "" {
			return obj.Message + " (" + obj.Type + ")"
		}
		return obj.Message
	}
	var s string
	if json.Unmarshal(body.Error, &s) == nil && s != "" {
		return s
	}
	return body.Message
}

// excerpt shortens server text for a message.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "empty body"
	}
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// callError is the CallError for req, with keys redacted.
func (r *remote) callError(req Request, msg string, retryable bool) error {
	return &CallError{Provider: r.name, Node: req.Node, Call: req.Call, Message: r.redact(msg), Retryable: retryable}
}

// finish turns a complete stream into a Response: it checks tool calls,
// explains an answer that is all reasoning, checks structured output and
// labels, and prices the usage.
func (r *remote) finish(req Request, model string, res *streamResult) (Response, error) {
	if !res.done && res.stop == "" {
		return Response{}, failf(true, "the stream ended before the answer was complete")
	}
	resp := Response{Text: res.text.String(), ToolCalls: res.toolCalls, Model: res.model, StopReason: res.stop}
	if resp.Model == "" {
		resp.Model = model
	}
	for i := range resp.ToolCalls {
		tc := &resp.ToolCalls[i]
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%s_%d_%d", req.Node, req.Call, i)
		}
		if tc.Name == "" {
			return Response{}, failf(true, "tool call %d has no tool name", i)
		}
		if len(bytes.TrimSpace(tc.Args)) == 0 {
			tc.Args = json.RawMessage("{}")
		}
		// Arguments that are not valid JSON are passed on as written: the
		// agent loop answers such a call with the reason, so that the
		// model can correct it (a retry would re-send the same request).
	}
	if len(resp.ToolCalls) > 0 {
		resp.StopReason = StopToolCalls
	}
	if resp.StopReason == "" {
		resp.StopReason = StopEnd
	}
	if strings.TrimSpace(resp.Text) == "" && len(resp.ToolCalls) == 0 && (res.reasoning > 0 || res.thought) {
		if resp.StopReason == StopMaxTokens {
			return Response{}, failf(false, "the model spent the whole token budget thinking (%d characters of reasoning) and wrote no answer; raise max_tokens or lower the reasoning effort", res.reasoning)
		}
		return Response{}, failf(true, "the model wrote only reasoning (%d characters) and no answer text (stop reason %q); ask again, or choose a model or setting without a thinking mode", res.reasoning, res.rawStop)
	}
	if req.OutputSchema != nil && len(resp.ToolCalls) == 0 {
		text, err := checkStructured(resp.Text, req.OutputSchema)
		if err != nil {
			var ae *attemptError
			if errors.As(err, &ae) {
				ae.answer = resp.Text
			}
			return Response{}, err
		}
		resp.Text = text
	}
	if len(req.Labels) > 0 && len(resp.ToolCalls) == 0 {
		resp.Text = matchLabel(resp.Text, req.Labels)
	}
	if res.haveUsage {
		resp.Usage = res.usage
	} else {
		resp.Usage = Usage{InputTokens: InputTokens(req), OutputTokens: OutputTokens(resp)}
	}
	resp.Usage = priceUsageAt(resp.Usage, r.prices, model, resp.Model, r.cache)
	return resp, nil
}
