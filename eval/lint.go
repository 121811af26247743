package eval

import (
	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/plan"
)

// CompileFlow compiles a suite's flow with the standard compiler options.
func CompileFlow(path string) (*plan.Plan, diag.List) {
	return compile.CompileFile(path, compile.Options{})
}

// LintPaths lints every suite file (`*.eval.yml`) among paths and under
// the directories in paths; other files are ignored, so it can be called
// with the same arguments as compile.LintPaths and the two lists merged.
func LintPaths(paths []string) (diag.List, error) {
	return suite.LintPaths(paths, CompileFlow)
}
