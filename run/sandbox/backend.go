package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Backend names a way of running code.
type Backend string

const (
	// Bwrap isolates the code with bubblewrap: new namespaces (no network),
	// read-only host system directories, no home, writable workspace.
	Bwrap Backend = "bwrap"
	// Process applies only resource limits and an emptied environment:
	// no isolation at all.
	Process Backend = "process"
)

// EnvBackend forces a backend: "bwrap" or "process".
const EnvBackend = "AGENTLAB_SANDBOX"

// Info is the outcome of detection: the chosen backend, which ones work
// here, and a sentence for each saying why it was or was not chosen.
type Info struct {
	Chosen    Backend
	Available []Backend
	Reasons   map[Backend]string
	Forced    bool   // AGENTLAB_SANDBOX chose
	Err       error  // set when the forced backend cannot run; Run fails with it
	User      string // who the code runs as
}

// Isolated reports whether the chosen backend isolates the code.
func (i Info) Isolated() bool { return i.Chosen == Bwrap && i.Err == nil }

var (
	detectOnce sync.Once
	detected   Info
)

// Detect probes the backends once per process and returns the same Info
// afterwards.
func Detect() Info {
	detectOnce.Do(func() { detected = detect(os.Getenv(EnvBackend)) })
	return detected
}

// detect does the work of Detect for a given AGENTLAB_SANDBOX value.
func detect(force string) Info {
	info := Info{Reasons: map[Backend]string{}, User: "current user"}
	if os.Geteuid() == 0 {
		info.User = fmt.Sprintf("a uid of its own per run (from %d), dropped from root", uidBase)
		if err := canDropRoot(); err != nil {
			info.User = fmt.Sprintf("root (switching users failed: %v)", err)
		}
	}
	info.Available = append(info.Available, Process)
	info.Reasons[Process] = "always available; NO ISOLATION: only limits, an emptied environment and its own working directory"
	bwrapErr := probeBwrap()
	if bwrapErr == nil {
		info.Available = append([]Backend{Bwrap}, info.Available...)
		info.Reasons[Bwrap] = "works here (probed by running a trivial command): namespaces, no network, read-only host"
	} else {
		info.Reasons[Bwrap] = bwrapErr.Error()
	}
	b, err := ParseBackend(force)
	switch {
	case err != nil:
		info.Chosen = Process
		info.Err = err
	case b == "":
		if bwrapErr == nil {
			info.Chosen = Bwrap
		} else {
			info.Chosen = Process
		}
	case b == Bwrap:
		info.Forced, info.Chosen = true, Bwrap
		if bwrapErr != nil {
			info.Err = fmt.Errorf("%s=bwrap, but bwrap cannot run here: %v; install bubblewrap (apt-get install bubblewrap), allow user namespaces, or set %s=process to run without isolation", EnvBackend, bwrapErr, EnvBackend)
		}
	case b == Process:
		info.Forced, info.Chosen = true, Process
	}
	return info
}

// ParseBackend reads a value of AGENTLAB_SANDBOX: "" (unset, or only
// spaces) means choose automatically, otherwise bwrap or process. It only
// parses and probes nothing, so that a run can refuse a misspelt value
// before it starts instead of failing at its first code node.
func ParseBackend(s string) (Backend, error) {
	switch t := strings.TrimSpace(s); t {
	case "":
		return "", nil
	case string(Bwrap), string(Process):
		return Backend(t), nil
	}
	return "", fmt.Errorf("%s=%q is not a backend; use bwrap or process, or unset it to choose automatically", EnvBackend, s)
}

// CheckEnv parses AGENTLAB_SANDBOX from the environment (see ParseBackend).
func CheckEnv() error {
	_, err := ParseBackend(os.Getenv(EnvBackend))
	return err
}

// bwrapCandidates are tried when bwrap is not in PATH.
var bwrapCandidates = []string{"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"}

// bwrapPath finds bubblewrap in the caller's PATH or the usual places.
func bwrapPath() (string, error) {
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p, nil
	}
	for _, p := range bwrapCandidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("bwrap is not installed (apt-get install bubblewrap)")
}

// probeBwrap runs "sh -c 'exit 0'" through the same shim and bwrap
// arguments that Run uses, so a policy that forbids namespaces shows here
// and not in the middle of a run.
func probeBwrap() error {
	if _, err := bwrapPath(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "agentlab-probe-")
	if err != nil {
		return fmt.Errorf("cannot create a probe directory: %v", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := run(ctx, Spec{Argv: []string{"/bin/sh", "-c", "exit 0"}, Dir: dir, Timeout: 10 * time.Second, Backend: Bwrap})
	if err != nil {
		return fmt.Errorf("bwrap does not work here: %v", err)
	}
	if res.ExitCode != 0 {
		msg := strings.TrimSpace(string(res.Stderr))
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", res.ExitCode)
		}
		return fmt.Errorf("bwrap does not work here: %s", firstLine(msg))
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// sandboxPath is the only PATH the code sees, and the PATH in which
// interpreters and commands are looked up: the system directories, never
// the caller's (which may point into a home directory that bwrap hides
// and that the sandbox user cannot read).
const sandboxPath = "/usr/local/bin:/usr/bin:/bin"

// interpreters maps a language to its interpreter and the file name the
// code is written to.
var interpreters = map[string]struct{ cmd, file string }{
	"python":     {"python3", "main.py"},
	"javascript": {"node", "main.js"},
}

// lookSandboxPath resolves a command name in sandboxPath.
func lookSandboxPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			return "", fmt.Errorf("command %q must be a bare name or an absolute path", name)
		}
		return name, nil
	}
	for _, d := range filepath.SplitList(sandboxPath) {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed in %s", name, sandboxPath)
}

// ForPreset returns the backend code runs in when the operator's choice is
// operator ("" = AGENTLAB_SANDBOX, else detection) and a preset's sandbox
// row asks for preset ("auto", "bwrap", "process"). The sandbox is the
// operator's: a preset may only ask for the stricter bwrap; its "process"
// (the built-in minimal preset's) or "auto" leaves the operator's choice.
func ForPreset(operator Backend, preset string) Backend {
	if Backend(preset) == Bwrap {
		return Bwrap
	}
	return operator
}
