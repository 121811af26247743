package sandbox

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Spec says what to run and within which limits. Zero limits take the
// defaults below; negative limits are refused.
type Spec struct {
	// Language is "python" or "javascript"; with Code it selects python3 or
	// node. Leave both empty and set Argv to run a command instead.
	Language string
	Code     string
	// Argv runs a command (custom command tools). Argv[0] is looked up in
	// the sandbox PATH, never in the caller's PATH.
	Argv []string
	// Dir is the working directory, created by the caller (normally under
	// the run directory). It is the only host directory the code may write.
	Dir   string
	Stdin []byte
	// Stdio, when set, connects the code's stdin and stdout to the caller
	// for the whole run instead of Stdin and the captured Stdout (which is
	// then empty): code mode holds a conversation with the program on
	// them. Stderr is captured as usual.
	Stdio *Stdio
	// Env holds extra variables passed on purpose; nothing else of the
	// caller's environment reaches the code.
	Env map[string]string

	Timeout    time.Duration // wall clock; the whole process group is killed
	CPUSeconds int           // RLIMIT_CPU
	MemoryMB   int           // RLIMIT_DATA (heap and private writable mappings)
	OutputCap  int           // bytes kept of stdout and of stderr each
	MaxProcs   int           // processes and threads the code may add (RLIMIT_NPROC = the user's current count + MaxProcs)
	FileSizeMB int           // RLIMIT_FSIZE: largest file the code may write
	DiskMB     int           // total the code may write to its working directory and /tmp (disk.go)

	// Backend overrides Detect's choice ("" = the detected one).
	Backend Backend
}

// Stdio is the caller's side of a conversation with the code. In and Out
// are the code's ends of two pipes (os.Pipe): the code reads In and
// writes Out. They are passed to the code as they are, without copying
// goroutines, so Run returns as soon as the code has exited; the caller
// closes them after Run returns, which ends its own reads and writes.
type Stdio struct {
	In, Out *os.File
}

// Defaults for a zero Spec field.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultCPUSeconds = 10
	DefaultMemoryMB   = 512
	DefaultOutputCap  = 1 << 20
	DefaultMaxProcs   = 64
	DefaultFileSizeMB = 64
	DefaultDiskMB     = 256
)

// Result is what the code produced. Stdout is the node's result; Value is
// Stdout parsed as JSON when it is valid JSON and was not truncated.
type Result struct {
	Stdout, Stderr  []byte
	Value           any  // parsed stdout, or nil
	IsJSON          bool // Value holds parsed JSON
	ExitCode        int  // -1 when killed by a signal
	Signal          string
	TimedOut        bool // the wall-clock timeout fired
	OutputTruncated bool // stdout or stderr went over OutputCap
	Killed          bool // the process group was killed (timeout, output flood, cancel)
	KillReason      string
	Backend         Backend
	Duration        time.Duration
	// Warnings name limits that could not be applied for this run.
	Warnings []string
}

// ErrSpec marks a Spec that cannot run as given.
var ErrSpec = errors.New("sandbox: invalid spec")

func (s *Spec) normalise() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, args...))
	}
	if s.Dir == "" {
		return bad("no working directory; give Spec.Dir (a directory of its own under the run directory)")
	}
	switch {
	case len(s.Argv) > 0 && (s.Code != "" || s.Language != ""):
		return bad("give either Language and Code or Argv, not both")
	case len(s.Argv) == 0 && s.Language == "":
		return bad("no language and no command; set Language (python|javascript) and Code, or Argv")
	case len(s.Argv) == 0:
		if _, ok := interpreters[s.Language]; !ok {
			return bad("language %q is not supported; use python or javascript", s.Language)
		}
	}
	if s.Stdio != nil && (s.Stdio.In == nil || s.Stdio.Out == nil || len(s.Stdin) > 0) {
		return bad("Stdio needs both In and Out, and no Stdin")
	}
	if s.Timeout < 0 || s.CPUSeconds < 0 || s.MemoryMB < 0 || s.OutputCap < 0 || s.MaxProcs < 0 || s.FileSizeMB < 0 || s.DiskMB < 0 {
		return bad("limits must not be negative")
	}
	for k := range s.Env {
		if k == "" || containsAny(k, "=\x00") {
			return bad("environment variable name %q is not valid", k)
		}
	}
	def := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	def(&s.CPUSeconds, DefaultCPUSeconds)
	def(&s.MemoryMB, DefaultMemoryMB)
	def(&s.OutputCap, DefaultOutputCap)
	def(&s.MaxProcs, DefaultMaxProcs)
	def(&s.FileSizeMB, DefaultFileSizeMB)
	def(&s.DiskMB, DefaultDiskMB)
	return nil
}

func containsAny(s, chars string) bool {
	for _, c := range chars {
		for _, d := range s {
			if c == d {
				return true
			}
		}
	}
	return false
}
