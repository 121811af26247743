package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessBackendAttackCodePrintsItsHostPaths: code that prints where it
// runs — its working directory, its own file (as every Python traceback
// does), its temporary directory — must not put the host's random
// directory names into its recorded output, or two identical runs under the
// process backend record different bytes. It reads the names bwrap gives.
func TestProcessBackendAttackCodePrintsItsHostPaths(t *testing.T) {
	code := strings.Join([]string{
		"import os, sys, tempfile, traceback",
		"print(os.getcwd())",
		"print(__file__)",
		"print(tempfile.gettempdir(), os.environ['TMP'])",
		"try:",
		"    raise ValueError('boom')",
		"except ValueError:",
		"    traceback.print_exc()",
		"sys.stderr.write(os.getcwd() + ' ' + __file__ + '\\n')",
	}, "\n")
	var outs []string
	for i := 0; i < 2; i++ {
		real := workdir(t)
		// The second run reaches its working directory through a symlink:
		// getcwd answers with the resolved path, which is rewritten too.
		dir := real
		if i == 1 {
			dir = filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(real, dir); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Run(context.Background(), Spec{Language: "python", Code: code, Dir: dir, Backend: Process})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 {
			t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
		}
		got := string(res.Stdout) + "|" + string(res.Stderr)
		for _, host := range []string{real, dir, os.TempDir() + "/agentlab-code-"} {
			if strings.Contains(got, host) {
				t.Fatalf("the output names the host directory %s:\n%s", host, got)
			}
		}
		if want := "/work\n/code/main.py\n/tmp /tmp\n"; string(res.Stdout) != want {
			t.Fatalf("stdout %q, want %q", res.Stdout, want)
		}
		if !strings.Contains(string(res.Stderr), `File "/code/main.py", line 6`) || !strings.HasSuffix(string(res.Stderr), "/work /code/main.py\n") {
			t.Fatalf("stderr does not read as under bwrap:\n%s", res.Stderr)
		}
		outs = append(outs, got)
	}
	if outs[0] != outs[1] {
		t.Fatalf("two identical programs recorded different output:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// TestHostPathsLongestFirst: the temporary directory lies inside the code
// directory, so it must be rewritten first or it would read /code/tmp.
func TestHostPathsLongestFirst(t *testing.T) {
	h := newHostPaths("/data/runs/r1/work/c-1-9", "/tmp/agentlab-code-1", "/tmp/agentlab-code-1/tmp")
	got := string(h.rewrite([]byte("/tmp/agentlab-code-1/tmp/x /tmp/agentlab-code-1/main.py /data/runs/r1/work/c-1-9/out.csv /elsewhere")))
	if want := "/tmp/x /code/main.py /work/out.csv /elsewhere"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
