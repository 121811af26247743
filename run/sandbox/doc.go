// Package sandbox runs untrusted code (the `code` node, `run_code`, and
// custom command tools) in a subprocess with an emptied environment, a
// working directory of its own, resource limits and a wall-clock timeout.
//
// Two backends exist. "bwrap" (bubblewrap) adds isolation: new namespaces
// for everything including the network, a read-only view of the host's
// system directories, no home directory, and a writable working directory.
// "process" has no isolation at all: it only applies the limits below, so
// code can read whatever the user running agentlab can read and can use the
// network. Detect probes bwrap once per process by really running a trivial
// command (it fails under some container policies) and chooses it when it
// works; AGENTLAB_SANDBOX=bwrap|process forces a backend, and forcing bwrap
// where it does not work is an error, never a silent fallback.
//
// Limits are applied by a small re-exec shim: Run starts the running
// binary itself under a reserved argv[0]; the package's init function sees
// that name, sets the rlimits (CPU seconds, data segment size, file size,
// process count), sets no_new_privs, drops root privileges, and
// execs the interpreter (or bwrap). Doing it in Go with setrlimit(2) avoids
// depending on the shell's ulimit, whose options differ between shells
// (dash has no -u). Any binary that imports this package therefore supports
// the shim; nothing needs to be added to main.
//
// When agentlab runs as root the shim switches to a uid/gid of the run's
// own (see sandboxUID) before the code starts, because the kernel ignores
// RLIMIT_NPROC for root and a fork bomb would otherwise be bounded by the
// timeout alone; a uid per run keeps runs from sharing that limit or
// signalling each other.
//
// Where it fits: docs/architecture.md#running.
package sandbox
