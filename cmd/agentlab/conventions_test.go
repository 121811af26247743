package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"
)

// noFormat are the runnable commands without --format, each with why:
// they print no result a program would read.
var noFormat = map[string]string{
	"agentlab completion bash":       "prints a shell script",
	"agentlab completion fish":       "prints a shell script",
	"agentlab completion powershell": "prints a shell script",
	"agentlab completion zsh":        "prints a shell script",
	"agentlab presets":               "only says that a subcommand is needed",
	"agentlab export":                "only says that a subcommand is needed",
	"agentlab export argo":           "prints an Argo Workflow, which is YAML",
	"agentlab ptc":                   "only says that a subcommand is needed",
	"agentlab completion":            "shows its help, or refuses an unknown subcommand",
	"agentlab examples":              "shows its help, or refuses an unknown subcommand",
	"agentlab keys":                  "shows its help, or refuses an unknown subcommand",
}

// TestCommandConventions checks the command-line contract (docs/cli.md) on
// the command tree itself: every command's help ends with examples, and
// every runnable command that prints results takes --format text|json.
func TestCommandConventions(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		path := c.CommandPath()
		long := strings.TrimSpace(c.Long)
		paras := strings.Split(long, "\n\n")
		if last := paras[len(paras)-1]; !strings.HasPrefix(last, "Example") || !strings.Contains(last, "\n  ") {
			t.Errorf("%s: the help does not end with an Examples: block of indented commands", path)
		}
		if c.Runnable() && c != c.Root() {
			// InheritedFlags merges the persistent flags of c and its
			// parents into c.Flags(), as running the command does.
			_ = c.InheritedFlags()
			f := c.Flags().Lookup("format")
			_, exempt := noFormat[path]
			switch {
			case f == nil && !exempt:
				t.Errorf("%s: no --format flag; add --format text|json", path)
			case f != nil && exempt:
				t.Errorf("%s: has --format now; remove it from noFormat", path)
			case f != nil && f.DefValue != "text":
				t.Errorf("%s: --format defaults to %q, want text", path, f.DefValue)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
}

// cmdJSONValid asserts that the last command's stdout is JSON: one or more
// JSON values and nothing else.
//
//	exec agentlab version --format json
//	jsonvalid
func cmdJSONValid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: jsonvalid")
	}
	err := checkJSONStream([]byte(ts.ReadFile("stdout")))
	switch {
	case neg && err == nil:
		ts.Fatalf("stdout is JSON")
	case !neg && err != nil:
		ts.Fatalf("stdout is not JSON: %v", err)
	}
}

func checkJSONStream(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("stdout is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestCheckJSONStream(t *testing.T) {
	for in, ok := range map[string]bool{
		`{"a":1}` + "\n":          true,
		"{\n  \"a\": [1, 2]\n}\n": true,
		`[]`:                      true,
		`{"a":1}` + "\n{}\n":      true,
		"":                        false,
		"  \n":                    false,
		"run x succeeded\n":       false,
		`{"a":1}` + "\nok\n":      false,
		`{"a":`:                   false,
	} {
		if err := checkJSONStream([]byte(in)); (err == nil) != ok {
			t.Errorf("checkJSONStream(%q) = %v, want ok=%v", in, err, ok)
		}
	}
}
