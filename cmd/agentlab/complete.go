package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/examples"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/presets"
	"github.com/agentlab/agentlab/run/runlog"
)

// Shell completion of values: each flag whose values are a known set
// (--format, --tier, --provider, --decision) or a directory (--data-dir),
// and each argument that names a run, a node a run waits at, an example,
// a preset or a file of the kind the command reads. They are registered
// here, for every command at once, so that a command file stays about its
// command, and only when the shell asks for completions (cobra's hidden
// __complete command): other commands never read them.

// argCompleters maps a command path to the completion of its arguments.
var argCompleters = map[string]cobra.CompletionFunc{
	"agentlab resume":      firstArg(completeRunIDs),
	"agentlab report":      firstArg(completeRunIDs),
	"agentlab runs show":   firstArg(completeRunIDs),
	"agentlab runs events": firstArg(completeRunIDs),
	"agentlab approve":     completeApprove,
	"agentlab examples init": firstArg(func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var names []string
		for _, e := range examples.List() {
			names = append(names, e.Name+"\t"+e.Summary)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}),
	"agentlab presets show":  firstArg(completePresets),
	"agentlab presets diff":  completePresets,
	"agentlab presets apply": fileExt("yml", "yaml"),
	"agentlab run":           fileExt("yml", "yaml", "json"),
	"agentlab compile":       fileExt("yml", "yaml"),
	"agentlab lint":          fileExt("yml", "yaml"),
	"agentlab eval":          fileExt("yml", "yaml"),
	"agentlab verify":        fileExt("html"),
}

// flagValues are the fixed value sets of flags, by flag name.
var flagValues = map[string][]string{
	"tier":     {"exploratory", "published", "governed"},
	"provider": {"mock", "script:", "openai", "anthropic"},
	"decision": {"approve", "reject"},
}

// formatUsage reads the values of --format from its usage text
// ("output format: text|json|sarif|github").
var formatUsage = lazyre.New(`format: ([a-z|]+)`)

// addCompletions registers the completions on every command of the tree.
func addCompletions(c *cobra.Command) {
	if f, ok := argCompleters[c.CommandPath()]; ok && c.ValidArgsFunction == nil {
		c.ValidArgsFunction = f
	}
	register := func(name string, f cobra.CompletionFunc) {
		_ = c.RegisterFlagCompletionFunc(name, f) // a flag registered on an ancestor stays so
	}
	for _, name := range []string{"format", "data-dir", "tier", "provider", "decision"} {
		fl := c.LocalFlags().Lookup(name) // defined on c, persistent or not
		if fl == nil {
			continue
		}
		switch name {
		case "format":
			if m := formatUsage.FindStringSubmatch(fl.Usage); m != nil {
				register(name, values(strings.Split(m[1], "|")))
			}
		case "data-dir":
			register(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return nil, cobra.ShellCompDirectiveFilterDirs
			})
		default:
			register(name, values(flagValues[name]))
		}
	}
	for _, sub := range c.Commands() {
		addCompletions(sub)
	}
}

func values(vs []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return vs, cobra.ShellCompDirectiveNoFileComp
	}
}

func fileExt(exts ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

// firstArg completes only the first argument with f.
func firstArg(f cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f(cmd, args, toComplete)
	}
}

// completeRunIDs lists the runs of the command's data directory, newest
// first, each with its status.
func completeRunIDs(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	recs, err := runlog.List(completionDataDir(cmd))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID+"\t"+r.Status)
	}
	return ids, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// completeApprove completes the run (those waiting for a decision) and
// then the nodes that run waits at.
func completeApprove(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	recs, err := runlog.List(completionDataDir(cmd))
	if err != nil || len(args) > 1 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, r := range recs {
		if r.Status != runlog.StatusWaiting {
			continue
		}
		switch {
		case len(args) == 0:
			out = append(out, r.ID+"\twaiting")
		case strings.HasPrefix(r.ID, args[0]):
			for _, w := range r.Waiting {
				out = append(out, w.Node)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completePresets lists the built-in presets; a patch file completes as a file.
func completePresets(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return presets.Builtins(), cobra.ShellCompDirectiveDefault
}

// completionDataDir is the data directory the command line names so far.
func completionDataDir(cmd *cobra.Command) string {
	v, _ := cmd.Flags().GetString("data-dir")
	return dataDir(v)
}
