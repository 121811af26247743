// Package s3fake starts an in-process S3-compatible server for tests
// (gofakes3 over memory), with hooks to play a hostile or failing server:
// one that ignores conditional PUTs, fails after N writes, or whose
// objects are edited behind agentlab's back. Only tests import it.
//
// Where it fits: docs/architecture.md#supporting-packages.
package s3fake

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is a running fake.
type Server struct {
	URL     string
	Backend gofakes3.Backend
	// NoConditional makes the server ignore If-None-Match on PUT, like
	// S3-compatible servers that do not implement it.
	NoConditional atomic.Bool
	// LyingPreconditions makes the server answer 412 (already there) to
	// every conditional PUT of an artifact without storing anything.
	LyingPreconditions atomic.Bool
	// ConflictPuts answers 409 to that many conditional PUTs first, as a
	// server does while another conditional write of the key is in flight.
	ConflictPuts atomic.Int64
	// FailPutsAfter, when > 0, answers 500 to every PUT after that many.
	FailPutsAfter atomic.Int64
	// UnavailableGets answers 503 to every GET, as an overloaded or
	// half-down server does while it still accepts writes.
	UnavailableGets atomic.Bool
	puts            atomic.Int64

	mu   sync.Mutex
	Keys []string // keys PUT, in order
	ts   *httptest.Server
}

// New starts a fake with bucket created; Close stops it.
func New(bucket string) (*Server, error) {
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		return nil, err
	}
	s := &Server{Backend: backend}
	h := gofakes3.New(backend).Server()
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && s.UnavailableGets.Load() {
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodPut {
			n := s.puts.Add(1)
			if after := s.FailPutsAfter.Load(); after > 0 && n > after {
				http.Error(w, "injected failure", http.StatusInternalServerError)
				return
			}
			if s.NoConditional.Load() {
				r.Header.Del("If-None-Match")
			}
			if r.Header.Get("If-None-Match") != "" && s.ConflictPuts.Add(-1) >= 0 {
				http.Error(w, "conditional request conflict", http.StatusConflict)
				return
			}
			if s.LyingPreconditions.Load() && r.Header.Get("If-None-Match") != "" && strings.Contains(r.URL.Path, "/artifacts/") {
				http.Error(w, "precondition failed", http.StatusPreconditionFailed)
				return
			}
			s.mu.Lock()
			s.Keys = append(s.Keys, r.URL.Path)
			s.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	s.URL = s.ts.URL
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.ts.Close() }

// Start starts a fake for the duration of the test and sets the AWS
// environment the SDK's credential chain reads.
func Start(t testing.TB, bucket string) *Server {
	t.Helper()
	s, err := New(bucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, kv := range Env {
		t.Setenv(kv[0], kv[1])
	}
	return s
}

// Env gives the AWS SDK static test credentials and keeps it away from
// the user's shared config and the instance metadata service.
var Env = [][2]string{
	{"AWS_ACCESS_KEY_ID", "test"},
	{"AWS_SECRET_ACCESS_KEY", "testsecret"},
	{"AWS_SESSION_TOKEN", ""},
	{"AWS_PROFILE", ""},
	{"AWS_CONFIG_FILE", "/nonexistent/agentlab-test"},
	{"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/agentlab-test"},
	{"AWS_EC2_METADATA_DISABLED", "true"},
	{"AWS_REGION", "us-east-1"},
}

// Puts is the number of PUT requests seen.
func (s *Server) Puts() int64 { return s.puts.Load() }
