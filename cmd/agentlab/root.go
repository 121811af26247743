package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agentlab/agentlab/diag"
)

// Exit codes shared by every command (docs/cli.md).
const (
	exitOK       = 0
	exitFailed   = 1 // lint errors, run failed, a check failed
	exitUsage    = 2 // bad usage or unreadable input
	exitWaiting  = 3 // run paused for a person
	exitWithheld = 4 // finished, withheld by the issuance contract
)

// exitError carries an exit code out of a command; msg, when set, is
// printed to stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// exitf returns an error that makes agentlab exit with code.
func exitf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// exitCode returns an error that exits with code and prints nothing more.
func exitCode(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code}
}

// globalFlags are the flags every command shares.
type globalFlags struct {
	noColor bool
	quiet   bool
	verbose bool
}

var global globalFlags

// commandFactories lists every subcommand; each command file registers its
// constructor in init so that commands live one per file.
var commandFactories = map[string]func() *cobra.Command{}

func register(name string, f func() *cobra.Command) { commandFactories[name] = f }

// newRootCmd builds the whole command tree.
func newRootCmd() *cobra.Command { return buildRoot("") }

// newRootCmdFor builds the tree that running args needs. When args start
// with the exact name of a top-level command, that is the root and that
// command's own tree only: the command runs, and prints its help and its
// errors, as in the whole tree, and a short command such as a lint of one
// file does not pay for building the other forty. Anything else (help,
// completion, a flag first, an unknown or abbreviated name) gets the whole
// tree, whose listings and did-you-means need every command.
func newRootCmdFor(args []string) *cobra.Command {
	if len(args) > 0 && args[0] != "" {
		if _, ok := commandFactories[args[0]]; ok {
			return buildRoot(args[0])
		}
	}
	return newRootCmd()
}

// buildRoot builds the root with every command, or only with the one
// named only.
func buildRoot(only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentlab",
		Short: "Compile, run, seal and verify LLM/agent workflows whose results must survive an audit",
		Long: `agentlab lints a YAML workflow, compiles it to an immutable plan identified by
its BLAKE3 hash, runs it against a content-addressed store, seals the run, and
writes a report in which every number traces back to its source.

Examples:
  agentlab lint flows/
  agentlab compile flow.yml -o flow.plan.json
  agentlab run flow.yml
  agentlab verify .agentlab/out/<run>/bundle.html`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return configureCaps(cmd)
		},
	}
	root.PersistentFlags().BoolVar(&global.noColor, "no-color", false, "disable colour (also NO_COLOR)")
	root.PersistentFlags().BoolVarP(&global.quiet, "quiet", "q", false, "print only results and errors")
	root.PersistentFlags().BoolVarP(&global.verbose, "verbose", "v", false, "print more detail")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitf(exitUsage, "%v\nRun '%s --help' for usage.", err, c.CommandPath())
	})
	if only != "" {
		root.AddCommand(commandFactories[only]())
		// The completion command is reached only through the whole tree.
		root.CompletionOptions.DisableDefaultCmd = true
		refuseUnknownSubcommands(root)
		return root
	}
	names := make([]string, 0, len(commandFactories))
	for n := range commandFactories {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		root.AddCommand(commandFactories[n]())
	}
	// Add cobra's `completion bash|zsh|fish|powershell` now rather than at
	// Execute, so that the generated reference documents it too.
	root.InitDefaultCompletionCmd()
	addCompletionExamples(root)
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes every command that only groups
// subcommands (completion, examples, keys…) refuse an unknown one with
// exit code 2 and a did-you-mean, as the root does, instead of printing
// its help and exiting 0 — a typo in a script must not pass.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.Parent() == nil || !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		return unknownSubcommand(cmd.CommandPath(), args[0], names)
	}
}

// unknownSubcommand is the usage error for a subcommand that does not
// exist: exit code 2, a did-you-mean when one is close, and the list.
func unknownSubcommand(path, got string, names []string) error {
	hint := ""
	if s := diag.DidYouMean(got, names); s != "" {
		hint = "; " + s
	} else {
		for _, n := range names { // an abbreviation: "gen" for "generate"
			if got != "" && strings.HasPrefix(n, got) {
				hint = fmt.Sprintf("; did you mean %q?", n)
				break
			}
		}
	}
	return exitf(exitUsage, "unknown %s subcommand %q%s (use %s)", path, got, hint, strings.Join(names, ", "))
}

// useColor reports whether output to f may be coloured: a terminal that
// is not TERM=dumb, no NO_COLOR, no --no-color.
func useColor(f *os.File) bool {
	if global.noColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// interactive reports whether agentlab may prompt: stdin is a terminal and
// neither CI=true nor --yes says otherwise.
func interactive(yes bool) bool {
	if yes || os.Getenv("CI") == "true" || os.Getenv("CI") == "1" {
		return false
	}
	return term.IsTerminal(int(os.Stdin.Fd()))
}

// checkFormat validates a --format value.
func checkFormat(got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a {
			return nil
		}
	}
	return exitf(exitUsage, "--format %q is not one of %v", got, allowed)
}
