package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run"
)

// printWarnings returns the run.Options.Warn of a command: the warnings a
// run finds before its nodes start (W-SCRIPT-NODE, a script file naming a
// node the flow lacks) are printed on stderr like lint's, and the run goes
// on.
func printWarnings(cmd *cobra.Command) func(diag.List) {
	return func(l diag.List) {
		_ = diag.WriteText(cmd.ErrOrStderr(), relToWD(l).Sorted(), diag.TextOptions{Color: useColor(os.Stderr)})
	}
}

// relToWD writes the file of each diagnostic relative to the working
// directory when it lies under it. A run resolves a script file against
// the flow's directory made absolute, so its warnings would otherwise
// name a long absolute path where lint names the path as the user would
// type it; a file outside the working directory keeps its absolute path
// (a ../../ chain says less than the path itself).
func relToWD(l diag.List) diag.List {
	wd, err := os.Getwd()
	if err != nil {
		return l
	}
	out := make(diag.List, len(l))
	for i, d := range l {
		if filepath.IsAbs(d.File) {
			if r, err := filepath.Rel(wd, d.File); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				d.File = r
			}
		}
		out[i] = d
	}
	return out
}

// warnScripts prints, once per script file, the W-SCRIPT-NODE warnings of
// the script providers an evaluation's variants use: --provider's file is
// relative to the working directory, a variant's to the suite's directory
// (as eval/flowrun resolves them).
func warnScripts(cmd *cobra.Command, p *plan.Plan, vs []suite.Variant, flagProvider, suiteDir string) {
	seen := map[string]bool{}
	var all diag.List
	for _, v := range vs {
		spec, base := v.Provider, suiteDir
		if flagProvider != "" {
			spec, base = flagProvider, ""
		}
		file, ok := strings.CutPrefix(spec, "script:")
		if !ok {
			continue
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(base, file)
		}
		if seen[file] {
			continue
		}
		seen[file] = true
		all = append(all, run.ScriptWarnings(p, "script:"+file, "")...)
	}
	if len(all) > 0 {
		printWarnings(cmd)(all)
	}
}
