package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentlab/agentlab/run/sandbox"
)

// afterDone is how long a program may take to exit once it sent done
// before it is killed (its result stands).
const afterDone = 5 * time.Second

// Run runs one program and serves its tool calls until it ends. A
// program that fails is a Result with Failure set, not an error; the error
// is for a Spec that cannot run (ErrSpec) and for ctx ending, in which
// case the partial Result is returned with it.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := spec.normalise(); err != nil {
		return nil, err
	}
	r := newRunner(ctx, spec)
	defer r.cancel()
	return r.run()
}

type runner struct {
	spec   Spec
	parent context.Context
	ctx    context.Context // cancelled to stop the program and its sub-calls
	cancel context.CancelFunc
	w      *frameWriter
	queue  chan *pendingCall
	sem    chan struct{}
	calls  sync.WaitGroup

	mu       sync.Mutex
	res      Result
	n        int            // sub-calls so far
	pending  map[string]int // ref → unanswered (refs as their JSON text)
	stdout   strings.Builder
	printed  int
	failure  *Failure // first failure wins
	done     *inFrame
	runtime  string
	gotReady bool
}

type pendingCall struct {
	ref   json.RawMessage
	id    string
	tool  string
	args  json.RawMessage
	index int // into res.SubCalls
}

func newRunner(parent context.Context, spec Spec) *runner {
	ctx, cancel := context.WithCancel(parent)
	return &runner{
		spec: spec, parent: parent, ctx: ctx, cancel: cancel,
		queue:   make(chan *pendingCall, spec.MaxPending),
		sem:     make(chan struct{}, spec.MaxParallel),
		pending: map[string]int{},
	}
}

// fail records the first failure and stops the program.
func (r *runner) fail(kind, format string, args ...any) {
	r.mu.Lock()
	if r.failure == nil {
		r.failure = &Failure{Kind: kind, Message: fmt.Sprintf(format, args...)}
	}
	r.mu.Unlock()
	r.cancel()
}

func (r *runner) run() (*Result, error) {
	spec := r.spec
	start := time.Now()
	info := sandbox.Detect()
	backend := spec.Backend
	if backend == "" {
		backend = info.Chosen
	}
	r.res.Sandbox = Facts{
		Backend: string(backend), Isolated: backend == sandbox.Bwrap, Language: spec.Language,
		TimeoutS: spec.Timeout.Seconds(), MemoryMB: spec.MemoryMB, OutputCap: spec.OutputCap,
		MaxFrame: spec.MaxFrame, MaxParallel: spec.MaxParallel,
	}
	r.res.SubCalls = []SubCall{}
	if spec.Backend == "" && info.Err != nil {
		r.res.Failure = &Failure{Kind: KindSandbox, Message: info.Err.Error()}
		r.res.Sandbox.Isolated = false
		return &r.res, nil
	}

	// Two pipes: the program reads inR and writes outW; agentlab holds
	// inW and outR.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("ptc: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("ptc: %w", err)
	}
	defer inW.Close()
	defer outR.Close()
	r.w = &frameWriter{w: inW, max: spec.MaxFrame}

	code := spec.Program
	if !spec.raw {
		code = Source(spec.Language, spec.Program, spec.Tools)
	}
	env := map[string]string{}
	for k, v := range spec.SandboxEnv {
		env[k] = v
	}
	sbSpec := sandbox.Spec{
		Language: spec.Language, Code: code, Dir: spec.Dir, Env: env,
		Stdio:   &sandbox.Stdio{In: inR, Out: outW},
		Timeout: spec.Timeout,
		// The program mostly waits for its tools: CPU time is bounded by
		// the wall clock, not by the sandbox's short default.
		CPUSeconds: int(spec.Timeout.Seconds()) + 1,
		MemoryMB:   spec.MemoryMB, OutputCap: spec.OutputCap, Backend: backend,
	}
	type outcome struct {
		res *sandbox.Result
		err error
	}
	exited := make(chan outcome, 1)
	go func() {
		res, err := sandbox.Run(r.ctx, sbSpec)
		// The program is gone: closing its ends of the pipes ends our
		// reads (EOF) and our writes (EPIPE).
		inR.Close()
		outW.Close()
		exited <- outcome{res, err}
	}()

	var dispatched sync.WaitGroup
	dispatched.Add(1)
	go func() {
		defer dispatched.Done()
		r.dispatch()
	}()

	r.serve(newFrameReader(outR, spec.MaxFrame))
	out := <-exited
	r.cancel() // sub-calls still running are no longer wanted
	close(r.queue)
	dispatched.Wait()
	r.calls.Wait()

	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Duration = time.Since(start)
	r.res.Stdout = r.stdout.String()
	r.res.Sandbox.Runtime = r.runtime
	r.finish(out.res, out.err)
	if err := r.parent.Err(); err != nil {
		if r.res.Failure == nil {
			r.res.Failure = &Failure{Kind: KindExit, Message: "the run was cancelled"}
		}
		r.res.Output = nil
		return &r.res, err
	}
	return &r.res, nil
}

// finish decides the outcome from the frames seen and how the sandbox
// ended. Called with r.mu held.
func (r *runner) finish(sb *sandbox.Result, sbErr error) {
	res := &r.res
	res.ExitCode = -1
	if sb != nil {
		res.ExitCode = sb.ExitCode
		res.Logs = tail(string(sb.Stderr), logsTail)
		res.Sandbox.Backend = string(sb.Backend)
		res.Sandbox.Isolated = sb.Backend == sandbox.Bwrap
		res.Sandbox.Warnings = sb.Warnings
	}
	switch {
	case r.failure != nil:
		res.Failure = r.failure
	case sbErr != nil:
		res.Failure = &Failure{Kind: KindSandbox, Message: fmt.Sprintf("the program could not be started: %v", sbErr)}
	case r.done != nil:
		// The program reported its end; how it exited afterwards does not
		// change its result.
		if r.done.OK {
			res.Output = r.output()
			return
		}
		res.Failure = programFailure(r.done.Error)
	case sb.TimedOut:
		res.Failure = &Failure{Kind: KindTimeout, Message: fmt.Sprintf("the program did not finish within %s and was killed; make it do less, or call fewer tools one after another (run independent calls concurrently)", r.spec.Timeout)}
	case sb.Killed && strings.Contains(sb.KillReason, "output flood"):
		res.Failure = &Failure{Kind: KindOutputCap, Message: fmt.Sprintf("the program wrote too much to stderr (%s) and was killed", sb.KillReason)}
	case sb.Killed:
		res.Failure = &Failure{Kind: KindExit, Message: "the program was killed: " + sb.KillReason}
	case !r.gotReady && sb.ExitCode != 0 && startupFailed(string(sb.Stderr)):
		res.Failure = &Failure{Kind: KindSandbox, Message: "the sandbox could not start the program: " + firstLine(string(sb.Stderr))}
	case sb.ExitCode != 0:
		res.Failure = &Failure{Kind: KindExit, Message: fmt.Sprintf("the program exited with status %d before it finished; see the logs", sb.ExitCode)}
	default:
		res.Failure = &Failure{Kind: KindProtocol, Message: "the program ended without sending its done frame"}
	}
}

// startupFailed recognises the sandbox's own error lines (the limits shim
// and bubblewrap write them before the interpreter starts).
func startupFailed(stderr string) bool {
	return strings.HasPrefix(stderr, "agentlab sandbox:") || strings.HasPrefix(stderr, "bwrap:")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// programFailure maps the error of a failed done frame to a Failure.
func programFailure(e *programError) *Failure {
	if e == nil {
		return &Failure{Kind: KindExit, Message: "the program reported a failure without saying what failed"}
	}
	switch e.Kind {
	case KindToolError:
		return &Failure{Kind: KindToolError, Tool: e.Tool, SubCall: e.ID,
			Message: fmt.Sprintf("uncaught ToolCallError from %s (%s): %s; catch ToolCallError to handle a failed call", e.Tool, e.ID, e.Message)}
	case KindProtocol:
		return &Failure{Kind: KindProtocol, Message: e.Message}
	}
	what := e.Type
	if what == "" {
		what = "an error"
	}
	return &Failure{Kind: KindExit, Message: fmt.Sprintf("the program raised %s: %s", what, e.Message)}
}

// output is the program's result: its return value, else its printed
// text when that is one JSON value, else null.
func (r *runner) output() json.RawMessage {
	if out := r.done.Output; len(out) > 0 && string(out) != "null" {
		return out
	}
	if s := strings.TrimSpace(r.stdout.String()); s != "" && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return json.RawMessage("null")
}

// serve reads the program's frames until its stdout ends or the protocol
// breaks (then the program is stopped and the rest is not read).
func (r *runner) serve(fr *frameReader) {
	var doneTimer *time.Timer
	defer func() {
		if doneTimer != nil {
			doneTimer.Stop()
		}
	}()
	for {
		line, err := fr.next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			if errors.Is(err, errProtocol) {
				r.fail(KindProtocol, "%s", strings.TrimPrefix(err.Error(), "protocol: "))
			}
			// Another read error: the sandbox is tearing the pipe down.
			return
		}
		f, err := decodeFrame(line)
		if err == nil {
			err = r.handle(f)
		}
		if err != nil {
			r.fail(KindProtocol, "%s", strings.TrimPrefix(err.Error(), "protocol: "))
			return
		}
		if f.Type == frameDone && doneTimer == nil {
			doneTimer = time.AfterFunc(afterDone, r.cancel)
		}
		if r.ctx.Err() != nil {
			return
		}
	}
}

// handle acts on one frame.
func (r *runner) handle(f *inFrame) error {
	r.mu.Lock()
	ready, done := r.gotReady, r.done != nil
	r.mu.Unlock()
	switch {
	case done:
		return protocolf("the program sent a %q frame after its done frame", f.Type)
	case !ready && f.Type != frameReady:
		return protocolf("the program sent a %q frame before its ready frame", f.Type)
	}
	switch f.Type {
	case frameReady:
		if ready {
			return protocolf("the program sent a second ready frame")
		}
		if f.Protocol != Protocol {
			return protocolf("the program speaks protocol %d; this agentlab speaks %d", f.Protocol, Protocol)
		}
		r.mu.Lock()
		r.gotReady, r.runtime = true, f.Runtime
		r.mu.Unlock()
		return r.w.write(bootFrame{
			Type: frameBoot, Protocol: Protocol, CallID: r.spec.CallID, MaxFrame: r.spec.MaxFrame,
			MaxParallel: r.spec.MaxParallel, MaxPending: r.spec.MaxPending,
			TimeoutMS: r.spec.Timeout.Milliseconds(), Debug: r.spec.debug(),
		})
	case frameStdout:
		r.mu.Lock()
		defer r.mu.Unlock()
		r.printed += len(f.Data)
		if room := r.spec.OutputCap - r.stdout.Len(); room > 0 {
			r.stdout.WriteString(f.Data[:min(room, len(f.Data))])
		}
		if r.printed > r.spec.OutputCap {
			if r.failure == nil {
				r.failure = &Failure{Kind: KindOutputCap, Message: fmt.Sprintf("the program printed more than %d bytes (the output cap) and was stopped; print less, or return a summary instead", r.spec.OutputCap)}
			}
			r.cancel()
		}
		return nil
	case frameCall:
		return r.call(f)
	case frameDone:
		if f.OK && len(f.Output) > 0 && !json.Valid(f.Output) {
			return protocolf("the done frame's output is not JSON")
		}
		r.mu.Lock()
		r.done = f
		r.mu.Unlock()
		return nil
	case frameBoot, frameResult:
		return protocolf("the program sent a %q frame, which only agentlab sends", f.Type)
	}
	return protocolf("the program sent a frame of unknown type %q", f.Type)
}

// call registers a sub-call and queues it. The id is given here, in the
// order calls arrive.
func (r *runner) call(f *inFrame) error {
	var ref any
	if len(f.Ref) == 0 || json.Unmarshal(f.Ref, &ref) != nil {
		return protocolf("a call frame without a ref")
	}
	switch ref.(type) {
	case float64, string:
	default:
		return protocolf("a call frame's ref must be a number or a string, not %s", f.Ref)
	}
	if f.Tool == "" {
		return protocolf("a call frame without a tool name")
	}
	args := f.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' {
		return protocolf("the arguments of a call of %s are not a JSON object", f.Tool)
	}
	key := string(f.Ref)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.pending[key]; dup {
		return protocolf("the program reused ref %s while that call was still pending", key)
	}
	if len(r.pending) >= r.spec.MaxPending {
		return protocolf("the program has more than %d tool calls pending (the pending-call limit); await some before starting more", r.spec.MaxPending)
	}
	r.n++
	c := &pendingCall{ref: f.Ref, id: fmt.Sprintf("%s:ptc:%d", r.spec.CallID, r.n), tool: f.Tool, args: args, index: len(r.res.SubCalls)}
	r.pending[key] = c.index
	r.res.SubCalls = append(r.res.SubCalls, SubCall{ID: c.id, Tool: c.tool, Args: args})
	r.calls.Add(1)
	r.queue <- c // never blocks: the queue holds MaxPending calls
	return nil
}

// dispatch starts queued calls in arrival order, at most MaxParallel at
// once.
func (r *runner) dispatch() {
	for c := range r.queue {
		select {
		case r.sem <- struct{}{}:
		case <-r.ctx.Done():
			r.answer(c, nil, r.ctx.Err())
			continue
		}
		go func() {
			defer func() { <-r.sem }()
			value, err := r.invoke(c)
			r.answer(c, value, err)
		}()
	}
}

// invoke runs one sub-call: tools outside the SDK are refused here.
func (r *runner) invoke(c *pendingCall) (json.RawMessage, error) {
	if r.ctx.Err() != nil {
		return nil, r.ctx.Err()
	}
	known := false
	for _, t := range r.spec.Tools {
		if t.Name == c.tool {
			known = true
			break
		}
	}
	if !known {
		return nil, fmt.Errorf("no tool named %q in this program's SDK; call one of the SDK's functions", c.tool)
	}
	value, err := r.spec.CallTool(r.ctx, c.id, c.tool, c.args)
	if err != nil {
		return nil, err
	}
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	if !json.Valid(value) {
		return nil, fmt.Errorf("the tool returned a result that is not JSON")
	}
	return value, nil
}

// answer records the outcome of a sub-call and sends its result frame.
func (r *runner) answer(c *pendingCall, value json.RawMessage, err error) {
	defer r.calls.Done()
	frame := resultFrame{Type: frameResult, Ref: c.ref, ID: c.id, OK: err == nil, Value: value}
	if err != nil {
		frame.Value = nil
		frame.Error = &resultError{Kind: KindToolError, Message: err.Error()}
	}
	werr := r.w.write(frame)
	if errors.Is(werr, errFrameTooLarge) {
		err = fmt.Errorf("the result of %s is larger than the frame limit of %d bytes; ask for less (fewer rows or columns, a LIMIT)", c.tool, r.spec.MaxFrame)
		frame = resultFrame{Type: frameResult, Ref: c.ref, ID: c.id, Error: &resultError{Kind: KindToolError, Message: err.Error()}}
		werr = r.w.write(frame)
	}
	r.mu.Lock()
	delete(r.pending, string(c.ref))
	if err != nil {
		r.res.SubCalls[c.index].Error = err.Error()
	}
	r.mu.Unlock()
	_ = werr // a write fails only when the program is gone; its end is reported by the sandbox
}
