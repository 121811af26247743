package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/sandbox"
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
	var all diag.List
	for _, file := range scriptFiles(vs, flagProvider, suiteDir) {
		all = append(all, run.ScriptWarnings(p, "script:"+file, "")...)
	}
	if len(all) > 0 {
		printWarnings(cmd)(all)
	}
}

// scriptFiles lists, once each, the script files the variants' providers
// name (--provider's instead when given), resolved as the runs resolve
// them: a variant's against the suite's directory, the flag's against the
// working directory.
func scriptFiles(vs []suite.Variant, flagProvider, suiteDir string) []string {
	seen := map[string]bool{}
	var out []string
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
		if !seen[file] {
			seen[file] = true
			out = append(out, file)
		}
	}
	return out
}

// warnUnisolated prints one line on stderr, before the run starts, when
// the plan has code nodes and the sandbox that will run them gives no
// isolation (bwrap missing or AGENTLAB_SANDBOX=process): the person
// starting the run learns it there, not only from agentlab doctor.
func warnUnisolated(w io.Writer, p *plan.Plan) {
	if !planRunsCode(p) || sandbox.Detect().Isolated() {
		return
	}
	fmt.Fprintln(w, "agentlab: warning: code nodes will run with NO ISOLATION (process backend): the code can read every file agentlab can read and use the network; install bubblewrap (apt-get install -y bubblewrap), and see agentlab doctor")
}

// planRunsCode reports whether a plan has a code node, in a loop body or
// a subflow too.
func planRunsCode(p *plan.Plan) bool {
	var inGraph func(nodes []plan.Node) bool
	inGraph = func(nodes []plan.Node) bool {
		for _, n := range nodes {
			if n.Type == "code" || (n.Body != nil && inGraph(n.Body.Nodes)) {
				return true
			}
		}
		return false
	}
	if inGraph(p.Nodes) {
		return true
	}
	for _, sub := range p.Subflows {
		if sub != nil && planRunsCode(sub) {
			return true
		}
	}
	return false
}
