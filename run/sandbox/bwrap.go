package sandbox

import (
	"os"
	"strconv"
)

// systemDirs are bound read-only when they exist. On merged-/usr systems
// /bin, /lib… are symlinks into /usr and are recreated as symlinks.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// systemFiles are the few files of /etc that interpreters need to start
// (dynamic linker cache, alternatives symlinks, time zone). /etc as a
// whole is not bound: it may hold credentials.
var systemFiles = []string{"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/ssl/certs", "/etc/mime.types"}

// bwrapArgs builds the bubblewrap command line: every namespace unshared
// (network included), host system directories read-only, no home and no
// /etc beyond systemFiles, a private /tmp, the workspace writable at
// /work, the scratch directory (holding the code) read-only at /code, and
// death with the parent. bwrap's --new-session is not used: Run already
// starts the shim in a session of its own without a terminal, and keeping
// bwrap's processes in that session's process group lets Run kill and
// reap all of them.
//
// mapNobody (bwrap started by root) maps the code to uid/gid 65534 inside
// a new user namespace.
func bwrapArgs(bwrap, workspace, scratch string, mapNobody bool, tmpBytes int64) []string {
	a := []string{bwrap,
		"--unshare-all", "--die-with-parent",
		"--cap-drop", "ALL",
		"--hostname", "sandbox",
	}
	if mapNobody {
		a = append(a, "--unshare-user", "--uid", "65534", "--gid", "65534")
	}
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", t, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	for _, f := range systemFiles {
		if _, err := os.Stat(f); err == nil {
			a = append(a, "--ro-bind", f, f)
		}
	}
	a = append(a,
		"--proc", "/proc",
		"--dev", "/dev",
		"--size", strconv.FormatInt(tmpBytes, 10), "--tmpfs", "/tmp", // /tmp counts against the disk budget
		"--bind", workspace, "/work",
		"--ro-bind", scratch, "/code",
		"--chdir", "/work",
		"--",
	)
	return a
}
