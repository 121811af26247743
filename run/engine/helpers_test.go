package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
)

// memRecorder keeps events in memory, in canonical form.
type memRecorder struct {
	mu        sync.Mutex
	events    []RecordedEvent
	artifacts map[hashid.ID][]byte
	failAfter int // fail the append after this many events (0: never)
}

func newRecorder() *memRecorder { return &memRecorder{artifacts: map[hashid.ID][]byte{}} }

func (m *memRecorder) Append(typ, node string, data any) error {
	b, err := canon.Marshal(data)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failAfter > 0 && len(m.events) >= m.failAfter {
		return fmt.Errorf("disk full")
	}
	m.events = append(m.events, RecordedEvent{Type: typ, Node: node, Data: b})
	return nil
}

func (m *memRecorder) AppendBatch(evs []Event) error {
	for _, e := range evs {
		if err := m.Append(e.Type, e.Node, e.Data); err != nil {
			return err
		}
	}
	return nil
}

func (m *memRecorder) PutArtifact(b []byte) (hashid.ID, error) {
	id := hashid.Sum(b)
	m.mu.Lock()
	m.artifacts[id] = append([]byte(nil), b...)
	m.mu.Unlock()
	return id, nil
}

func (m *memRecorder) get(id hashid.ID) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.artifacts[id]
	if !ok {
		return nil, fmt.Errorf("no artifact %s", id)
	}
	return b, nil
}

// lines renders the events as "type node data" lines for comparisons.
func (m *memRecorder) lines() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.events))
	for i, e := range m.events {
		out[i] = e.Type + " " + e.Node + " " + string(e.Data)
	}
	return out
}

func (m *memRecorder) ofType(typ string) []string {
	var out []string
	for _, e := range m.events {
		if e.Type == typ {
			out = append(out, e.Node)
		}
	}
	return out
}

// fakeModel answers by a function of the request, counting calls per node.
type fakeModel struct {
	mu     sync.Mutex
	calls  map[string]int
	answer func(ctx context.Context, req ModelRequest) (string, error)
}

func newModel(answer func(ctx context.Context, req ModelRequest) (string, error)) *fakeModel {
	return &fakeModel{calls: map[string]int{}, answer: answer}
}

func (f *fakeModel) Complete(ctx context.Context, req ModelRequest, onToken func(string)) (ModelResponse, error) {
	f.mu.Lock()
	f.calls[req.Node]++
	f.mu.Unlock()
	text, err := f.answer(ctx, req)
	if err != nil {
		return ModelResponse{}, err
	}
	for _, w := range strings.SplitAfter(text, " ") {
		onToken(w)
	}
	return ModelResponse{Text: text, Model: "fake", Usage: Usage{InputTokens: 3, OutputTokens: len(strings.Fields(text))}}, nil
}

func (f *fakeModel) count(node string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[node]
}

// echo answers with the prompt.
func echo(_ context.Context, req ModelRequest) (string, error) {
	return "re: " + req.Messages[0].Content, nil
}

// nd builds a node; spec is alternating key, value.
func nd(id, typ string, spec ...any) plan.Node {
	n := plan.Node{ID: id, Type: typ, OnError: "fail", Spec: map[string]any{}}
	for i := 0; i+1 < len(spec); i += 2 {
		n.Spec[spec[i].(string)] = norm(spec[i+1])
	}
	return n
}

// edges parses "a -> b" and "br.yes -> c".
func edges(specs ...string) []plan.Edge {
	var out []plan.Edge
	for _, s := range specs {
		l, r, _ := strings.Cut(s, "->")
		l, r = strings.TrimSpace(l), strings.TrimSpace(r)
		e := plan.Edge{To: r}
		e.From, e.Port, _ = strings.Cut(l, ".")
		out = append(out, e)
	}
	return out
}

func mkPlan(nodes []plan.Node, es []plan.Edge) *plan.Plan {
	s := plan.DefaultSettings
	return &plan.Plan{Format: plan.FormatVersion, Agentlab: 1, Name: "t", Tier: plan.TierExploratory, Settings: s, Nodes: nodes, Edges: es}
}

type runOpt func(*Config)

func run(t *testing.T, p *plan.Plan, inputs map[string]any, opts ...runOpt) (*Result, *memRecorder) {
	t.Helper()
	rec := newRecorder()
	in, err := PrepareInputs(p.Inputs, inputs)
	if err != nil {
		t.Fatalf("inputs: %v", err)
	}
	cfg := Config{Plan: p, Inputs: in, Recorder: rec, Model: newModel(echo), MemoryDir: t.TempDir(), Actor: "tester"}
	for _, o := range opts {
		o(&cfg)
	}
	rec = cfg.Recorder.(*memRecorder)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, rec
}

func withModel(m Model) runOpt           { return func(c *Config) { c.Model = m } }
func withParallel(n int) runOpt          { return func(c *Config) { c.Parallel = n } }
func withPrior(p *Prior) runOpt          { return func(c *Config) { c.Prior = p } }
func withRecorder(r *memRecorder) runOpt { return func(c *Config) { c.Recorder = r } }

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
