package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the agentlab binary in-process as the
// "agentlab" command of every script under testdata/script.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentlab":  func() { os.Exit(execute(os.Args[1:])) },
		fakeMCPName: fakeMCPWithChild,
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("CI", "true")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       cmdExits,
			"evfixture":   cmdEvFixture,
			"replace":     cmdReplace,
			"jsonvalid":   cmdJSONValid,
			"sarifvalid":  cmdSARIFValid,
			"execprinted": cmdExecPrinted,
		},
	})
}

// cmdExits runs a command and asserts its exit code:
//
//	exits 3 agentlab run flow.yml
//
// stdout and stderr are kept for later stdout/stderr assertions.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d\nstderr:\n%s", args[1], got, want, ts.ReadFile("stderr"))
	}
}
