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
