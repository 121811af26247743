package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// backends returns the backends to exercise: process always, bwrap when
// it works on this machine.
func backends(t *testing.T) []Backend {
	t.Helper()
	out := []Backend{Process}
	if err := probeBwrap(); err == nil {
		out = append(out, Bwrap)
	} else {
		t.Logf("bwrap cases skipped: %v", err)
	}
	return out
}

// workdir returns a working directory below a directory every user may
// enter, so that the sandbox can drop root privileges for bwrap too.
func workdir(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "agentlab-sbtest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunBasics(t *testing.T) {
	tests := []struct {
		name     string
		spec     Spec
		wantOut  string // substring of stdout
		wantJSON any
		exit     int
	}{
		{"python json", Spec{Language: "python", Code: `import json; print(json.dumps({"n": 6*7}))`}, `"n": 42`, map[string]any{"n": float64(42)}, 0},
		{"javascript json", Spec{Language: "javascript", Code: `console.log(JSON.stringify([1,"a"]))`}, `[1,"a"]`, []any{float64(1), "a"}, 0},
		{"plain text stays text", Spec{Language: "python", Code: `print("hello")`}, "hello", nil, 0},
		{"stdin reaches code", Spec{Language: "python", Code: `import sys; print(sys.stdin.read().upper())`, Stdin: []byte("abc")}, "ABC", nil, 0},
		{"extra env passed on purpose", Spec{Language: "python", Code: `import os; print(os.environ["WANTED"])`, Env: map[string]string{"WANTED": "yes"}}, "yes", nil, 0},
		{"exit code kept", Spec{Language: "python", Code: `import sys; sys.exit(3)`}, "", nil, 3},
		{"argv command", Spec{Argv: []string{"sh", "-c", "echo argv-ok"}}, "argv-ok", nil, 0},
	}
	for _, b := range backends(t) {
		for _, tt := range tests {
			t.Run(string(b)+"/"+tt.name, func(t *testing.T) {
				spec := tt.spec
				spec.Dir, spec.Backend, spec.Timeout = workdir(t), b, 20*time.Second
				res, err := Run(context.Background(), spec)
				if err != nil {
					t.Fatal(err)
				}
				if res.ExitCode != tt.exit || !strings.Contains(string(res.Stdout), tt.wantOut) {
					t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
				}
				if tt.wantJSON != nil && (!res.IsJSON || fmt.Sprint(res.Value) != fmt.Sprint(tt.wantJSON)) {
					t.Errorf("value = %#v (json %v), want %#v", res.Value, res.IsJSON, tt.wantJSON)
				}
				if tt.wantJSON == nil && res.IsJSON {
					t.Errorf("plain output parsed as JSON: %#v", res.Value)
				}
				if res.Backend != b {
					t.Errorf("backend = %s", res.Backend)
				}
			})
		}
	}
}

func TestSpecRefused(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"no dir", Spec{Language: "python", Code: "1"}, "no working directory"},
		{"unknown language", Spec{Language: "ruby", Code: "1", Dir: "."}, `language "ruby" is not supported`},
		{"both", Spec{Language: "python", Argv: []string{"ls"}, Dir: "."}, "either"},
		{"neither", Spec{Dir: "."}, "no language and no command"},
		{"negative", Spec{Language: "python", Dir: ".", Timeout: -1}, "negative"},
		{"bad env", Spec{Language: "python", Dir: ".", Env: map[string]string{"A=B": "x"}}, "not valid"},
		{"missing dir", Spec{Language: "python", Dir: "/nonexistent/agentlab", Backend: Process}, "does not exist"},
		{"relative command", Spec{Argv: []string{"./x"}, Dir: ".", Backend: Process}, "bare name or an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.spec.Backend == "" {
				tt.spec.Backend = Process
			}
			_, err := Run(context.Background(), tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestDetectForced(t *testing.T) {
	saved := bwrapCandidates
	defer func() { bwrapCandidates = saved }()
	bwrapCandidates = []string{"/nonexistent/bwrap"}
	t.Setenv("PATH", "")

	info := detect("")
	if info.Chosen != Process || info.Err != nil || !strings.Contains(info.Reasons[Bwrap], "not installed") {
		t.Errorf("auto without bwrap: %+v", info)
	}
	info = detect("bwrap")
	if info.Chosen != Bwrap || info.Err == nil || !strings.Contains(info.Err.Error(), "AGENTLAB_SANDBOX=bwrap, but bwrap cannot run here") {
		t.Errorf("forced bwrap without bwrap must be an error, got %+v", info)
	}
	info = detect("process")
	if info.Chosen != Process || !info.Forced || info.Err != nil || info.Isolated() {
		t.Errorf("forced process: %+v", info)
	}
	if info = detect("docker"); info.Err == nil || !strings.Contains(info.Err.Error(), "not a backend") {
		t.Errorf("unknown backend: %+v", info)
	}
}

func TestParseBackend(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Backend
		err  string
	}{
		{"", "", ""},
		{"   ", "", ""},
		{"bwrap", Bwrap, ""},
		{" process\n", Process, ""},
		{"docker", "", `AGENTLAB_SANDBOX="docker" is not a backend; use bwrap or process, or unset it`},
		{"Bwrap", "", `"Bwrap" is not a backend`},
		{"none", "", "use bwrap or process"},
	} {
		got, err := ParseBackend(tc.in)
		if got != tc.want {
			t.Errorf("ParseBackend(%q) = %q, want %q", tc.in, got, tc.want)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseBackend(%q): unexpected error %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseBackend(%q) error = %v, want it to contain %q", tc.in, err, tc.err)
		}
	}
	t.Setenv(EnvBackend, "firejail")
	if err := CheckEnv(); err == nil {
		t.Error("CheckEnv accepted AGENTLAB_SANDBOX=firejail")
	}
	t.Setenv(EnvBackend, "process")
	if err := CheckEnv(); err != nil {
		t.Errorf("CheckEnv refused AGENTLAB_SANDBOX=process: %v", err)
	}
}

func TestCapBuffer(t *testing.T) {
	var floods atomic.Int32
	b := &capBuffer{cap: 4, killAt: 10, onFlood: func() { floods.Add(1) }}
	for _, s := range []string{"ab", "cdef", "ghijk"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatal(n, err)
		}
	}
	if got := string(b.bytes()); !strings.HasPrefix(got, "abcd\n[agentlab: output truncated at 4 bytes; 7 more bytes were dropped]") {
		t.Errorf("bytes = %q", got)
	}
	if !b.truncated() {
		t.Error("not truncated")
	}
	b.Write([]byte("x"))
	time.Sleep(10 * time.Millisecond)
	if n := floods.Load(); n != 1 {
		t.Errorf("onFlood called %d times, want 1", n)
	}
}

// TestContainment is the security table: each case runs hostile code and
// asserts both the containment and the recorded reason.
func TestContainment(t *testing.T) {
	t.Setenv("AGENTLAB_TEST_SECRET", "s3cr3t-value")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	home, _ := os.UserHomeDir()

	type check func(t *testing.T, b Backend, res *Result)
	tests := []struct {
		name  string
		spec  Spec
		only  Backend // "" = every backend
		check check
	}{
		{
			name: "inherited secret env var is not visible",
			spec: Spec{Language: "python", Code: `import os; print(os.environ.get("AGENTLAB_TEST_SECRET", "absent")); print(sorted(os.environ))`},
			check: func(t *testing.T, b Backend, res *Result) {
				out := string(res.Stdout)
				if strings.Contains(out, "s3cr3t") || !strings.HasPrefix(out, "absent") {
					t.Errorf("secret leaked: %s", out)
				}
				for _, name := range []string{"HOME", "USER", "GOPATH", "AGENTLAB"} {
					if strings.Contains(out, "'"+name) {
						t.Errorf("variable %s reached the code: %s", name, out)
					}
				}
			},
		},
		{
			name: "home directory is not readable",
			spec: Spec{Language: "python", Code: fmt.Sprintf(`import os
print(os.environ.get("HOME", "no-home"))
try:
    print(os.listdir(%q))
except OSError as e:
    print("refused", e.errno)`, home)},
			check: func(t *testing.T, b Backend, res *Result) {
				out := string(res.Stdout)
				if !strings.HasPrefix(out, "no-home") {
					t.Errorf("HOME set: %s", out)
				}
				if b == Process && os.Geteuid() != 0 {
					t.Log("process backend, not root: the home directory IS readable (no isolation; documented)")
					return
				}
				if !strings.Contains(out, "refused") {
					t.Errorf("home listed: %s", out)
				}
			},
		},
		{
			name: "network socket",
			spec: Spec{Language: "python", Code: fmt.Sprintf(`import socket
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("127.0.0.1", %d)); print("connected")
except OSError as e:
    print("refused", e)`, port)},
			check: func(t *testing.T, b Backend, res *Result) {
				out := string(res.Stdout)
				if b == Process {
					if !strings.Contains(out, "connected") {
						t.Errorf("expected the process backend to reach the network (it is not contained): %s %s", out, res.Stderr)
					}
					t.Log("process backend: network NOT contained (documented in docs/security.md)")
					return
				}
				if !strings.HasPrefix(out, "refused") {
					t.Errorf("bwrap let the code connect: %s", out)
				}
			},
		},
		{
			name: "printing 1 GB is capped and killed quickly",
			spec: Spec{Language: "python", OutputCap: 64 << 10, Code: `import sys
b = b"x" * (1 << 20)
for i in range(1024):
    sys.stdout.buffer.write(b)
print("finished")`},
			check: func(t *testing.T, b Backend, res *Result) {
				if !res.OutputTruncated || !res.Killed || !strings.Contains(res.KillReason, "output flood") {
					t.Errorf("truncated %v killed %v reason %q", res.OutputTruncated, res.Killed, res.KillReason)
				}
				if len(res.Stdout) > 65<<10 || strings.Contains(string(res.Stdout), "finished") {
					t.Errorf("stdout kept %d bytes", len(res.Stdout))
				}
				if !strings.Contains(string(res.Stdout), "[agentlab: output truncated at 65536 bytes") {
					t.Errorf("no truncation marker")
				}
				if res.Duration > 10*time.Second {
					t.Errorf("took %s", res.Duration)
				}
			},
		},
		{
			name: "wall-clock timeout kills",
			spec: Spec{Language: "python", Timeout: 700 * time.Millisecond, Code: "import time\nwhile True: time.sleep(0.05)"},
			check: func(t *testing.T, b Backend, res *Result) {
				if !res.TimedOut || !res.Killed || !strings.Contains(res.KillReason, "wall-clock timeout of 700ms") || res.ExitCode != -1 {
					t.Errorf("%+v", res)
				}
			},
		},
		{
			name: "CPU limit kills a busy loop",
			spec: Spec{Language: "python", CPUSeconds: 1, Timeout: 15 * time.Second, Code: "while True: pass"},
			check: func(t *testing.T, b Backend, res *Result) {
				if res.TimedOut || !res.Killed || !strings.Contains(res.KillReason, "resource limit") {
					t.Errorf("timedout %v killed %v reason %q signal %s", res.TimedOut, res.Killed, res.KillReason, res.Signal)
				}
			},
		},
		{
			name: "memory limit",
			spec: Spec{Language: "python", MemoryMB: 128, Code: `
try:
    x = bytearray(1 << 30); print("allocated")
except MemoryError:
    print("memory refused")`},
			check: func(t *testing.T, b Backend, res *Result) {
				if strings.Contains(string(res.Stdout), "allocated") || !strings.Contains(string(res.Stdout), "memory refused") {
					t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
				}
			},
		},
		{
			name: "file size limit",
			spec: Spec{Language: "python", FileSizeMB: 1, Code: `
try:
    open("big", "wb").write(b"x" * (8 << 20)); print("wrote")
except OSError as e:
    print("refused", e.errno)`},
			check: func(t *testing.T, b Backend, res *Result) {
				if !strings.Contains(string(res.Stdout), "refused") {
					t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
				}
			},
		},
		{
			name: "writes to system directories are refused",
			spec: Spec{Language: "python", Code: `
try:
    open("/usr/agentlab-escape", "w").write("x"); print("wrote")
except OSError as e:
    print("refused", e.errno)`},
			check: func(t *testing.T, b Backend, res *Result) {
				os.Remove("/usr/agentlab-escape")
				if !strings.Contains(string(res.Stdout), "refused") {
					t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
				}
			},
		},
	}
	ran := map[Backend]int{}
	defer func() {
		for b, n := range ran {
			t.Logf("RESULT sandbox-escape=%s trials=%d", b, n)
		}
	}()
	for _, b := range backends(t) {
		for _, tt := range tests {
			if tt.only != "" && tt.only != b {
				continue
			}
			ran[b]++
			t.Run(string(b)+"/"+tt.name, func(t *testing.T) {
				spec := tt.spec
				spec.Dir, spec.Backend = workdir(t), b
				if spec.Timeout == 0 {
					spec.Timeout = 20 * time.Second
				}
				res, err := Run(context.Background(), spec)
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, b, res)
			})
		}
	}
}

// TestForkBomb checks that a fork bomb is bounded by the process limit and
// the timeout, and that nothing of it survives. The limits are low so the
// test cannot take the machine down; it runs only where RLIMIT_NPROC
// applies (not as an unmapped root).
func TestForkBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, b := range backends(t) {
		t.Run(string(b), func(t *testing.T) {
			dir := workdir(t)
			// Never start the bomb where the process limit would not hold.
			if os.Geteuid() == 0 {
				if err := canDropRoot(); err != nil {
					t.Skipf("running as root and cannot switch to nobody: %v", err)
				}
				if tmp, _ := os.MkdirTemp("", "agentlab-code-"); b == Bwrap && !(reachableByOthers(dir) && reachableByOthers(tmp)) {
					os.Remove(tmp)
					t.Skip("bwrap would run as root: the temporary directory is private")
				} else {
					os.Remove(tmp)
				}
			}
			mark := fmt.Sprintf("AGENTLAB_BOMB_%d_%s", os.Getpid(), b)
			spec := Spec{Language: "python", Dir: dir, Backend: b, MaxProcs: 16, CPUSeconds: 2,
				Timeout: 1500 * time.Millisecond, Env: map[string]string{mark: "1"}, Code: `import os, time
n = 0
while n < 10000:
    try:
        os.fork(); n += 1
    except OSError:
        time.sleep(0.01)
`}
			res, err := Run(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) > 0 {
				t.Skipf("process limit not enforced here: %v", res.Warnings)
			}
			if !res.Killed || !res.TimedOut || res.Duration > 8*time.Second {
				out, _ := exec.Command("ps", "-o", "pid,ppid,pgid,stat,etime,cmd", "-u", "65534").CombinedOutput()
				t.Errorf("killed %v timedout %v after %s: exit %d %s\n%s", res.Killed, res.TimedOut, res.Duration, res.ExitCode, res.Stderr, out)
			}
			// Killed processes take a moment to be reaped; none may live on.
			deadline := time.Now().Add(5 * time.Second)
			n := countMarked(mark)
			for n > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				n = countMarked(mark)
			}
			if n > 0 {
				t.Errorf("%d processes of the fork bomb survived", n)
			}
			t.Logf("RESULT sandbox-fork-bomb=%s trials=1", b)
		})
	}
}

// countMarked counts live processes whose environment holds mark.
func countMarked(mark string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(env), mark+"=") {
			n++
		}
	}
	return n
}

// TestStdio: with Stdio the code's stdin and stdout are the caller's
// streams (code mode's frame channel), while stderr is still captured.
func TestStdio(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(string(b), func(t *testing.T) {
			inR, inW, _ := os.Pipe()
			outR, outW, _ := os.Pipe()
			defer inW.Close()
			defer outR.Close()
			done := make(chan *Result, 1)
			go func() {
				res, err := Run(context.Background(), Spec{Language: "python", Dir: workdir(t), Backend: b, Timeout: 20 * time.Second,
					Stdio: &Stdio{In: inR, Out: outW},
					Code:  "import sys\nfor line in sys.stdin:\n    sys.stdout.write('echo ' + line); sys.stdout.flush()\n    if line.strip() == 'bye': break\nsys.stderr.write('log')\n"})
				if err != nil {
					t.Error(err)
				}
				inR.Close()
				outW.Close()
				done <- res
			}()
			rd := bufio.NewReader(outR)
			for _, msg := range []string{"hello", "bye"} {
				fmt.Fprintln(inW, msg)
				line, err := rd.ReadString('\n')
				if err != nil || line != "echo "+msg+"\n" {
					t.Fatalf("got %q, %v", line, err)
				}
			}
			res := <-done
			if res == nil || len(res.Stdout) != 0 || string(res.Stderr) != "log" || res.ExitCode != 0 {
				t.Errorf("%+v", res)
			}
		})
	}
	if _, err := Run(context.Background(), Spec{Language: "python", Dir: ".", Backend: Process, Stdin: []byte("x"), Stdio: &Stdio{In: os.Stdin, Out: os.Stdout}}); err == nil {
		t.Error("Stdio with Stdin accepted")
	}
}
