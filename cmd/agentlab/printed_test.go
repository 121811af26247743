package main

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdExecPrinted runs, exactly as printed, the command agentlab printed
// for a person on a line of its own in stdout (or stderr), and asserts
// its exit code:
//
//	execprinted [stderr] CODE PREFIX
//
// runs the last line of stdout that, trimmed, starts with "agentlab PREFIX",
// split into words as a POSIX shell would (single quotes included).
func cmdExecPrinted(ts *testscript.TestScript, neg bool, args []string) {
	stream := "stdout"
	if len(args) > 0 && args[0] == "stderr" {
		stream, args = "stderr", args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: execprinted [stderr] CODE PREFIX")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("execprinted: bad code %q", args[0])
	}
	var line string
	for _, l := range strings.Split(ts.ReadFile(stream), "\n") {
		l = strings.TrimSpace(l)
		// "continue it with: agentlab resume …" prints the command after a colon.
		if i := strings.Index(l, ": agentlab "); i >= 0 {
			l = l[i+2:]
		}
		if strings.HasPrefix(l, "agentlab "+args[1]) {
			line = l
		}
	}
	if line == "" {
		ts.Fatalf("no printed command starts with %q in %s", "agentlab "+args[1], stream)
	}
	words, err := shellWords(line)
	if err != nil {
		ts.Fatalf("%s: %v", line, err)
	}
	ts.Logf("running as printed: %s", line)
	err = ts.Exec(words[0], words[1:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("execprinted: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d\nstderr:\n%s", line, got, want, ts.ReadFile("stderr"))
	}
}

// shellWords splits a command line as a POSIX shell does for words made
// of plain characters and single-quoted strings; anything else a shell
// would expand ($, `, ", \, globs outside quotes) is an error, because a
// printed command must not depend on it.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("$`\"\\*?[]|&;<>(){}~", r):
			return nil, errors.New("the command depends on what a shell makes of " + strconv.QuoteRune(r))
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
