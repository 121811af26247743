package main

import (
	"bytes"
	"sort"
	"testing"

	"github.com/spf13/cobra"
)

// TestRootForOneCommandAgrees: the tree built for one top-level command
// (newRootCmdFor) prints that command's help, and its subcommands' help
// and usage errors, exactly as the whole tree does.
func TestRootForOneCommandAgrees(t *testing.T) {
	names := make([]string, 0, len(commandFactories))
	for n := range commandFactories {
		names = append(names, n)
	}
	sort.Strings(names)
	run := func(root *cobra.Command, args []string) string {
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		_, err := root.ExecuteC()
		if err != nil {
			out.WriteString("error: " + err.Error())
		}
		return out.String()
	}
	for _, n := range names {
		if got := newRootCmdFor([]string{n}); len(got.Commands()) != 1 {
			t.Errorf("newRootCmdFor(%q) built %d commands", n, len(got.Commands()))
		}
		cases := [][]string{{n, "--help"}, {n, "--no-such-flag"}}
		for _, sub := range newRootCmd().Commands() {
			if sub.Name() != n {
				continue
			}
			for _, s := range sub.Commands() {
				cases = append(cases, []string{n, s.Name(), "--help"})
			}
			if sub.HasSubCommands() {
				cases = append(cases, []string{n, "no-such-subcommand"})
			}
		}
		for _, args := range cases {
			if got, want := run(newRootCmdFor(args), args), run(newRootCmd(), args); got != want {
				t.Errorf("%v: the one-command tree prints\n%s\nthe whole tree\n%s", args, got, want)
			}
		}
	}
	if got := newRootCmdFor([]string{"help", "lint"}); len(got.Commands()) < len(commandFactories) {
		t.Error("help got a partial tree")
	}
}
