package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// shimName is the argv[0] under which Run re-executes the running binary.
// It is not a valid command name one would type, so a normal invocation
// never takes this path.
const shimName = "agentlab-sandbox-shim"

// nobody is the uid/gid that probes whether root may switch users.
const nobody = 65534

func init() {
	if len(os.Args) > 0 && os.Args[0] == shimName {
		os.Exit(shimMain(os.Args[1:]))
	}
}

// shimLimits is what the shim applies before exec. Encoded as
// "key=value" arguments before "--".
type shimLimits struct {
	cpu, data, fsize, nproc uint64
	uid                     int // -1: keep
}

func (l shimLimits) args() []string {
	return []string{
		"cpu=" + strconv.FormatUint(l.cpu, 10),
		"data=" + strconv.FormatUint(l.data, 10),
		"fsize=" + strconv.FormatUint(l.fsize, 10),
		"nproc=" + strconv.FormatUint(l.nproc, 10),
		"uid=" + strconv.Itoa(l.uid),
	}
}

// shimMain applies the limits and execs the command; it returns only on
// failure, with exit status 125 (as env(1) and timeout(1) do).
func shimMain(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "agentlab sandbox: "+format+"\n", a...)
		return 125
	}
	l := shimLimits{uid: -1}
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		k, v, _ := strings.Cut(args[i], "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fail("bad limit %q", args[i])
		}
		switch k {
		case "cpu":
			l.cpu = uint64(n)
		case "data":
			l.data = uint64(n)
		case "fsize":
			l.fsize = uint64(n)
		case "nproc":
			l.nproc = uint64(n)
		case "uid":
			l.uid = int(n)
		default:
			return fail("unknown limit %q", k)
		}
	}
	if i+1 >= len(args) {
		return fail("no command")
	}
	argv := args[i+1:]
	set := func(res int, v uint64, name string) error {
		if v == 0 {
			return nil
		}
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setrlimit %s: %w", name, err)
		}
		return nil
	}
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	if l.uid >= 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return fail("dropping supplementary groups: %v", err)
		}
		if err := syscall.Setgid(l.uid); err != nil {
			return fail("setgid %d: %v", l.uid, err)
		}
		if err := syscall.Setuid(l.uid); err != nil {
			return fail("setuid %d: %v", l.uid, err)
		}
	}
	// A credential change clears the parent-death signal; set it again so
	// the code dies with agentlab.
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail("no_new_privs: %v", err)
	}
	// The limits come last, after everything the shim's own Go runtime
	// allocates, and the exec that follows them allocates nothing (a raw
	// execve of arguments prepared before): a data limit close to what a
	// Go program maps at start must stop the code, never the shim, which
	// failed now and then with "cannot allocate memory" when the limit
	// was set before the credential change and syscall.Exec. (The raw
	// execve leaves the soft RLIMIT_NOFILE the Go runtime raised at start
	// as it is; the hard limit is unchanged.)
	path, err := syscall.BytePtrFromString(argv[0])
	if err != nil {
		return fail("exec %s: %v", argv[0], err)
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return fail("exec %s: %v", argv[0], err)
	}
	envp, err := syscall.SlicePtrFromStrings(os.Environ())
	if err != nil {
		return fail("exec %s: %v", argv[0], err)
	}
	for _, r := range []struct {
		res  int
		v    uint64
		name string
	}{
		{unix.RLIMIT_CPU, l.cpu, "cpu"},
		{unix.RLIMIT_DATA, l.data, "data"},
		{unix.RLIMIT_FSIZE, l.fsize, "fsize"},
		{unix.RLIMIT_NPROC, l.nproc, "nproc"},
	} {
		if err := set(r.res, r.v, r.name); err != nil {
			return fail("%v", err)
		}
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	return fail("exec %s: %v", argv[0], errno)
}
