// Package standin is a stand-in model API for tests: a local HTTP server
// that speaks the OpenAI Chat Completions and the Anthropic Messages
// protocols (streamed and not, tool calls, usage, errors, hangs) and whose
// "model" knows only what the request showed it.
//
// The model behind it is the mock provider, but fed from the wire: the
// server decodes the HTTP body back into a request, and the evidence a
// report may cite is read from the catalog in the system prompt (never
// from anything the engine holds). A flow that reaches its documented
// outcome through this server therefore shows that the text sent to a
// real model carries everything the model needs.
//
// Where it fits: docs/architecture.md#supporting-packages.
package standin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/run/provider"
)

// Fault makes the server misbehave on one request, as real APIs do.
type Fault struct {
	// Status answers with this HTTP status and an error body in the
	// protocol's shape; nothing is billed. RetryAfter sets the header.
	Status     int
	RetryAfter string
	// Message is the error's message (default: the status text).
	Message string
	// Hang sends no response headers until the client gives up.
	Hang bool
	// ToolArgs replaces the arguments of the answer's first tool call
	// (a malformed tool call when it is not JSON).
	ToolArgs *string
	// Text replaces the answer's text.
	Text *string
}

// Captured is one request the server received.
type Captured struct {
	Protocol string // openai | anthropic
	Body     []byte
	Request  provider.Request
}

// Server is a running stand-in. Faults queued with Fail apply to the next
// requests in order; the rest are answered by the model.
type Server struct {
	*httptest.Server
	mock *provider.Mock

	mu       sync.Mutex
	faults   []Fault
	billed   provider.Usage
	requests []Captured
	// NoStream answers with one JSON body even when a stream is asked for.
	noStream bool
}

// New starts a stand-in server; close it with Close.
func New() *Server {
	s := &Server{mock: provider.NewMock(provider.Options{Seed: 1})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Fail queues faults for the next requests.
func (s *Server) Fail(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// NoStream makes the server answer with a plain JSON body, as some
// compatible servers do whatever "stream" says.
func (s *Server) NoStream(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noStream = on
}

// Billed is the sum of the usage the server reported for every answer
// it sent.
func (s *Server) Billed() provider.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.billed
}

// Requests returns what the server received, in order.
func (s *Server) Requests() []Captured {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Captured(nil), s.requests...)
}

// OpenAIBase and AnthropicBase are the base URLs to give the providers
// (OPENAI_BASE_URL, ANTHROPIC_BASE_URL).
func (s *Server) OpenAIBase() string    { return s.URL + "/v1" }
func (s *Server) AnthropicBase() string { return s.URL }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var proto wire
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		proto = openaiWire{}
	case strings.HasSuffix(r.URL.Path, "/v1/messages"):
		proto = anthropicWire{}
	default:
		http.NotFound(w, r)
		return
	}
	body, req, stream, err := proto.decode(r)
	if err != nil {
		proto.fail(w, http.StatusBadRequest, err.Error(), "")
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Captured{Protocol: proto.name(), Body: body, Request: req})
	var f Fault
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	stream = stream && !s.noStream
	s.mu.Unlock()
	switch {
	case f.Hang:
		<-r.Context().Done()
		return
	case f.Status != 0:
		msg := f.Message
		if msg == "" {
			msg = http.StatusText(f.Status)
		}
		proto.fail(w, f.Status, msg, f.RetryAfter)
		return
	}
	resp, err := s.mock.Complete(context.Background(), req, nil)
	if err != nil {
		proto.fail(w, http.StatusInternalServerError, err.Error(), "")
		return
	}
	if f.Text != nil {
		resp.Text = *f.Text
		resp.Usage.OutputTokens = provider.OutputTokens(resp)
	}
	if f.ToolArgs != nil && len(resp.ToolCalls) > 0 {
		resp.ToolCalls[0].Args = json.RawMessage(*f.ToolArgs)
	}
	resp.Model = req.Model
	s.mu.Lock()
	s.billed.InputTokens += resp.Usage.InputTokens
	s.billed.OutputTokens += resp.Usage.OutputTokens
	s.mu.Unlock()
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(proto.whole(resp))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	for _, e := range proto.events(resp) {
		_, _ = w.Write([]byte(e))
		if fl != nil {
			fl.Flush()
		}
	}
}

// wire is one protocol: reading a request, writing an answer streamed
// (events) or whole, and writing an error.
type wire interface {
	name() string
	decode(r *http.Request) (body []byte, req provider.Request, stream bool, err error)
	events(resp provider.Response) []string
	whole(resp provider.Response) any
	fail(w http.ResponseWriter, status int, msg, retryAfter string)
}

// interpret fills in what the wire does not carry as fields but the
// request's text shows: the evidence catalog (a report), the judge's
// instruction, the labels and (for Anthropic) the output schema.
func interpret(req *provider.Request) {
	req.Node, req.Kind, req.Seed = "standin", provider.KindLLM, 0
	if ev, ok := parseCatalog(req.System); ok {
		req.Kind, req.Evidence = provider.KindReport, ev
	}
	if strings.HasPrefix(req.System, "You check one claim") {
		req.Kind = provider.KindJudge
	}
	const labels = "Answer with exactly one of these labels and nothing else: "
	if i := strings.Index(req.System, labels); i >= 0 {
		line, _, _ := strings.Cut(req.System[i+len(labels):], "\n")
		req.Labels = strings.Split(strings.TrimSuffix(line, "."), ", ")
	}
	const schema = "It must be valid against this JSON Schema:\n"
	if i := strings.Index(req.System, schema); i >= 0 && req.OutputSchema == nil {
		var m map[string]any
		if json.NewDecoder(strings.NewReader(req.System[i+len(schema):])).Decode(&m) == nil {
			req.OutputSchema = m
		}
	}
}
