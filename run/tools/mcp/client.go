package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/tools"
)

// protocolVersion is the MCP revision asked for in the initialize
// handshake. It is the newest revision that uses the one-round-trip
// initialize exchange every current stdio server answers; the SDK's
// default first tries a newer discovery request that older servers may
// not expect. tools/list and tools/call, all this package uses, are the
// same in every revision.
const protocolVersion = "2025-11-25"

// Grace periods when a server is closed: first its stdin is closed and it
// may exit by itself, then its group gets SIGTERM, then SIGKILL.
var (
	closeGrace = 2 * time.Second
	termGrace  = 2 * time.Second
)

// stderrKeep is how many bytes of a server's stderr are kept.
const stderrKeep = 16 << 10

// Client is one running MCP server and the tools it exposes. It is safe
// for concurrent use: calls may run in parallel.
type Client struct {
	spec ServerSpec
	cmd  *exec.Cmd

	mu   sync.Mutex // guards sess, which Close may read while Start sets it
	sess *sdk.ClientSession

	stdin    *os.File // our ends of the pipes, closed by Close
	stdout   *os.File
	head     *head // the first bytes of stdout, for a failed handshake
	stderr   *tail
	errDone  chan struct{} // the stderr copier reached EOF
	exited   chan struct{} // closed once the process has exited and its group is killed
	waitErr  error         // the process's exit, valid once exited is closed
	tools    []tools.Tool
	warnings []string

	stopWatch func() bool
	closeOnce sync.Once
	closed    atomic.Bool // Close was called or the context ended
}

// Start launches the server described by spec, performs the MCP
// handshake and lists its tools, all within spec.StartTimeout. The server
// runs until Close is called or ctx ends, whichever comes first; ctx is
// therefore the run's context, not a short one. A server that cannot be
// started, exits, or does not answer in time is an *Error (CodeStart)
// naming the server and the end of its stderr.
func Start(ctx context.Context, spec ServerSpec) (*Client, error) {
	if spec.Approval == "" {
		spec.Approval = permission.ModeAsk
	}
	if spec.StartTimeout <= 0 {
		spec.StartTimeout = DefaultStartTimeout
	}
	if spec.CallTimeout <= 0 {
		spec.CallTimeout = DefaultCallTimeout
	}
	fail := func(fix, format string, args ...any) error {
		return &Error{Server: spec.Name, Code: CodeStart, Msg: fmt.Sprintf(format, args...), Fix: fix}
	}
	if !serverName.MatchString(spec.Name) || strings.Contains(spec.Name, "__") {
		return nil, fail("use 1 to 24 lower-case letters, digits, - and single _", "server name %q is not valid", spec.Name)
	}
	if len(spec.Command) == 0 || spec.Command[0] == "" {
		return nil, fail(`give command = ["program", …]`, "no command")
	}
	env, err := serverEnv(spec)
	if err != nil {
		return nil, fail("export the variable before running agentlab, or remove it from pass_env", "%v", err)
	}
	registerSecrets(spec, env)
	dir := spec.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, fail("", "no working directory: %v", err)
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fail("create it, or fix dir in the server's entry", "working directory %s does not exist", dir)
	}
	prog, err := lookPath(spec.Command[0], env["PATH"], dir)
	if err != nil {
		return nil, fail("give an absolute path, or set PATH in the server's env", "%v", err)
	}

	c := &Client{spec: spec, stderr: newTail(stderrKeep), exited: make(chan struct{}), errDone: make(chan struct{})}
	pipes, err := newPipes()
	if err != nil {
		return nil, fail("", "cannot create pipes: %v", err)
	}
	c.stdin, c.stdout = pipes.inW, pipes.outR
	c.head = &head{r: pipes.outR}
	c.cmd = &exec.Cmd{
		Path:   prog,
		Args:   spec.Command,
		Env:    envList(env),
		Dir:    dir,
		Stdin:  pipes.inR,
		Stdout: pipes.outW,
		Stderr: pipes.errW,
		// A session of its own: no controlling terminal, and a process
		// group (its id is the leader's pid) that is killed as a whole.
		// The parent-death signal kills the server if agentlab itself
		// dies without closing it.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	// The keeper (keeper.go) leads the group instead and kills all of it
	// when agentlab dies, even by SIGKILL, which no handler of agentlab's
	// could see: the server's own children go with it.
	direct := *c.cmd
	direct.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if self, err := os.Executable(); err == nil {
		c.cmd.Path = self
		c.cmd.Args = append([]string{keeperName, "--", prog}, spec.Command...)
		c.cmd.SysProcAttr.Pdeathsig = keeperDeathSignal
	}
	err = c.cmd.Start()
	if err != nil && c.cmd.Path != prog {
		// agentlab's own binary is gone (replaced while it ran): start the
		// server directly, which still dies with agentlab.
		c.cmd = &direct
		err = c.cmd.Start()
	}
	if err != nil {
		pipes.closeAll()
		return nil, fail("check the command and that the program is executable", "cannot start %s: %v", spec.Command[0], unwrapPath(err))
	}
	pipes.closeChildEnds()
	go func() {
		_, _ = io.Copy(c.stderr, pipes.errR)
		pipes.errR.Close()
		close(c.errDone)
	}()
	go c.wait()
	c.stopWatch = context.AfterFunc(ctx, func() { c.shutdown(true) })

	sctx, cancel := context.WithTimeout(ctx, spec.StartTimeout)
	defer cancel()
	cl := sdk.NewClient(&sdk.Implementation{Name: "agentlab", Version: "1"}, &sdk.ClientOptions{Logger: slog.New(slog.DiscardHandler)})
	sess, err := cl.Connect(sctx, &sdk.IOTransport{Reader: c.head, Writer: c.stdin}, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return nil, c.startFailed(ctx, sctx, "the initialize handshake", err)
	}
	c.mu.Lock()
	c.sess = sess
	c.mu.Unlock()
	var listed []*sdk.Tool
	for t, err := range sess.Tools(sctx, nil) {
		if err != nil {
			return nil, c.startFailed(ctx, sctx, "tools/list", err)
		}
		listed = append(listed, t)
	}
	if err := c.adopt(listed); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// startFailed closes the client and explains why starting failed: the
// context, the process's exit with its stderr, a timeout, or the
// protocol error.
func (c *Client) startFailed(ctx, sctx context.Context, step string, err error) error {
	if ctx.Err() != nil {
		c.Close()
		return ctx.Err()
	}
	timedOut := sctx.Err() != nil
	// A closed connection is seen before the exit is reaped: give the exit
	// a moment unless the server is merely silent.
	exited := c.waitExit(0) || (!timedOut && c.waitExit(time.Second))
	e := &Error{Server: c.spec.Name, Code: CodeStart}
	switch {
	case exited:
		e.Msg = fmt.Sprintf("the server %s during %s", describeExit(c.waitErr), step)
		e.Fix = "run the command by hand to see why it stops; its environment holds only PATH and the declared env and pass_env"
	case timedOut:
		e.Msg = fmt.Sprintf("no answer to %s within %s", step, c.spec.StartTimeout)
		e.Fix = "check that the command starts an MCP server on stdio (not HTTP), or raise start_timeout_s"
	default:
		e.Msg = fmt.Sprintf("%s failed: %v", step, err)
		e.Fix = "check that the command is an MCP server speaking JSON-RPC on stdout (logs belong on stderr)"
	}
	if line := c.head.notJSON(); line != "" {
		e.Msg += fmt.Sprintf("; its stdout began with %q, which is not JSON-RPC", line)
		e.Fix = "the server must speak JSON-RPC on stdout and log to stderr only; check that the command starts it in stdio mode"
	}
	c.Close()
	select { // EOF once the group is gone; bounded in case a child left it
	case <-c.errDone:
	case <-time.After(time.Second):
	}
	e.Stderr = c.stderr.lines(tailLines)
	return e
}

// adopt turns the listed tools into agentlab tools, keeping those the
// spec selects. Tools that cannot be offered (a schema that does not
// compile) are left out with a warning.
func (c *Client) adopt(listed []*sdk.Tool) error {
	sort.Slice(listed, func(i, j int) bool { return listed[i].Name < listed[j].Name })
	want := map[string]bool{}
	for _, n := range c.spec.Tools {
		want[n] = true
	}
	have := map[string]bool{}
	var remotes []string
	for _, t := range listed {
		if t != nil && t.Name != "" {
			remotes = append(remotes, t.Name)
		}
	}
	names := newNamer(c.spec.Name).assignAll(remotes)
	check := tools.NewRegistry() // Register checks the name and compiles the schema
	for _, t := range listed {
		if t == nil || t.Name == "" || have[t.Name] {
			continue
		}
		have[t.Name] = true
		if len(want) > 0 && !want[t.Name] {
			continue
		}
		mt := newTool(c, names[t.Name], t)
		if err := check.Register(mt); err != nil {
			c.warnings = append(c.warnings, fmt.Sprintf("mcp server %q: tool %q is not offered: %s", c.spec.Name, t.Name, oneLine(err.Error())))
			continue
		}
		c.tools = append(c.tools, mt)
	}
	var missing []string
	for _, n := range c.spec.Tools {
		if !have[n] {
			missing = append(missing, fmt.Sprintf("%q", n))
		}
	}
	if len(missing) > 0 {
		offered := make([]string, 0, len(have))
		for n := range have {
			offered = append(offered, n)
		}
		sort.Strings(offered)
		return &Error{Server: c.spec.Name, Code: CodeStart,
			Msg: fmt.Sprintf("tools lists %s, which the server does not offer", strings.Join(missing, ", ")),
			Fix: "the server offers: " + strings.Join(offered, ", ")}
	}
	return nil
}

// Name is the server's name.
func (c *Client) Name() string { return c.spec.Name }

// Spec is the entry the server was started from.
func (c *Client) Spec() ServerSpec { return c.spec }

// Tools returns the server's tools as agentlab tools, sorted by name,
// ready to be registered (tools.Registry.Register).
func (c *Client) Tools() []tools.Tool { return append([]tools.Tool(nil), c.tools...) }

// Warnings names the server's tools that were left out and why.
func (c *Client) Warnings() []string { return append([]string(nil), c.warnings...) }

// Modes gives every tool of the server its approval mode, for
// permission.Config.Modes. A mode set for a tool by name in
// [permissions.modes] should win; see MergeModes.
func (c *Client) Modes() map[string]permission.Mode {
	out := make(map[string]permission.Mode, len(c.tools))
	for _, t := range c.tools {
		out[t.Info().Name] = c.spec.Approval
	}
	return out
}

// MergeModes adds the approval modes of the clients' tools to modes
// (which may be nil) without overriding a mode already set for a tool by
// name, and returns the result.
func MergeModes(modes map[string]permission.Mode, clients ...*Client) map[string]permission.Mode {
	out := make(map[string]permission.Mode, len(modes))
	for k, v := range modes {
		out[k] = v
	}
	for _, c := range clients {
		for k, v := range c.Modes() {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
	}
	return out
}

// Close stops the server: it closes the connection (the server's stdin),
// waits briefly for the server to exit, then sends SIGTERM and finally
// SIGKILL to its whole process group. It is safe to call more than once.
func (c *Client) Close() error {
	c.shutdown(false)
	return nil
}

func (c *Client) shutdown(now bool) {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		if c.stopWatch != nil {
			c.stopWatch()
		}
		pid := c.cmd.Process.Pid
		if now {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		c.mu.Lock()
		sess := c.sess
		c.mu.Unlock()
		if sess != nil {
			_ = sess.Close() // closes both pipes
		}
		c.stdin.Close()
		c.stdout.Close()
		if !c.waitExit(closeGrace) {
			_ = syscall.Kill(-pid, syscall.SIGTERM)
			if !c.waitExit(termGrace) {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				<-c.exited
			}
		}
	})
}

// wait reaps the server, then kills what is left of its group (children
// it started and did not stop) and reaps those that were handed to us.
func (c *Client) wait() {
	err := c.cmd.Wait()
	pgid := c.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for range 50 { // bounded: 100 ms at most
		pid, werr := unix.Wait4(-pgid, nil, unix.WNOHANG, nil)
		if werr != nil && !errors.Is(werr, syscall.EINTR) {
			break // ECHILD: nothing of the group is ours to reap
		}
		if pid == 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	c.waitErr = err
	close(c.exited)
}

// waitExit reports whether the server exits within d.
func (c *Client) waitExit(d time.Duration) bool {
	select {
	case <-c.exited:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	}
}

// describeExit says how the process ended.
func describeExit(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was killed by " + ws.Signal().String()
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	if err != nil {
		return "stopped: " + err.Error()
	}
	return "exited with status 0"
}

// serverEnv is the server's whole environment: PATH (declared or the
// default), the declared variables, and the pass_env variables copied
// from ours. Nothing else is inherited.
func serverEnv(spec ServerSpec) (map[string]string, error) {
	env := map[string]string{"PATH": DefaultPath}
	for k, v := range spec.Env {
		env[k] = v
	}
	var missing []string
	for _, k := range spec.PassEnv {
		v, ok := os.LookupEnv(k)
		if !ok {
			missing = append(missing, k)
			continue
		}
		env[k] = v
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("pass_env names %s, which %s not set in agentlab's environment", strings.Join(missing, ", "), plural(len(missing), "is", "are"))
	}
	return env, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// lookPath finds the program: a name with a slash is taken as written
// (relative to dir), a bare name is looked up in the server's PATH —
// never in agentlab's, so the program is the one the server's
// environment names.
func lookPath(name, path, dir string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			return "", fmt.Errorf("%s: %v", name, err)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue // a relative PATH entry would depend on the directory
		}
		p := filepath.Join(d, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q is not found in the server's PATH (%s)", name, path)
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return unwrapPath(err)
	}
	if st.IsDir() {
		return errors.New("is a directory")
	}
	if st.Mode().Perm()&0o111 == 0 {
		return errors.New("is not executable")
	}
	return nil
}

// pipes are the server's stdin, stdout and stderr. They are plain OS
// pipes handed to the process as files, so that no copying goroutine of
// os/exec holds Wait until a stray grandchild closes them.
type pipes struct {
	inR, inW, outR, outW, errR, errW *os.File
}

func newPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	return &p, nil
}

func (p *pipes) closeChildEnds() {
	p.inR.Close()
	p.outW.Close()
	p.errW.Close()
}

func (p *pipes) closeAll() {
	for _, f := range []*os.File{p.inR, p.inW, p.outR, p.outW, p.errR, p.errW} {
		if f != nil {
			f.Close()
		}
	}
}

// oneLine folds a multi-line message (a schema compiler's) into one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
