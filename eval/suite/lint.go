package suite

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
)

// CompileFunc compiles a flow file; compile.CompileFile fits it (through
// a closure over its options). It is passed in so that this package does
// not import the compiler and the compiler may call back into it.
type CompileFunc func(path string) (*plan.Plan, diag.List)

// IsSuiteFile reports whether path names a suite (`*.eval.yml` or
// `*.eval.yaml`).
func IsSuiteFile(path string) bool {
	b := strings.ToLower(filepath.Base(path))
	return strings.HasSuffix(b, ".eval.yml") || strings.HasSuffix(b, ".eval.yaml")
}

// Load reads a suite and compiles and checks its flow. The suite, the
// plan and its hash are returned when there is no error; diagnostics of
// the flow itself are reported against the suite's flow: key (the flow's
// own lint reports them in detail).
func Load(path string, compileFlow CompileFunc) (*Suite, *plan.Plan, hashid.ID, diag.List) {
	s, l := ReadFile(path)
	if s == nil {
		return nil, nil, hashid.ID{}, l
	}
	flow := FlowPath(s)
	if _, err := os.Stat(flow); err != nil {
		l.Errorf(path, s.Pos["flow"], CodeFlow, "give the flow's path relative to the suite file",
			"flow %s cannot be read: %v", s.Flow, unwrap(err))
		return nil, nil, hashid.ID{}, l.Sorted()
	}
	p, fl := compileFlow(flow)
	if p == nil || fl.HasErrors() {
		n, _ := fl.Counts()
		first := ""
		for _, d := range fl.Sorted() {
			if d.Severity == diag.Error {
				first = ": first: " + d.String()
				break
			}
		}
		l.Errorf(path, s.Pos["flow"], CodeFlow, "run agentlab lint "+flow+" and fix the flow",
			"flow %s has %d error(s) and cannot be evaluated%s", s.Flow, n, first)
		return nil, nil, hashid.ID{}, l.Sorted()
	}
	h, err := p.Hash()
	if err != nil {
		l.Errorf(path, s.Pos["flow"], CodeFlow, "report this as a bug", "cannot hash the flow's plan: %v", err)
		return nil, nil, hashid.ID{}, l.Sorted()
	}
	l = append(l, Check(s, p, h)...)
	if l.HasErrors() {
		return nil, nil, hashid.ID{}, l.Sorted()
	}
	return s, p, h, l.Sorted()
}

// FlowPath is the suite's flow, resolved against the suite's directory.
func FlowPath(s *Suite) string {
	if filepath.IsAbs(s.Flow) {
		return s.Flow
	}
	return filepath.Join(filepath.Dir(s.File), s.Flow)
}

// Lint lints one suite file.
func Lint(path string, compileFlow CompileFunc) diag.List {
	_, _, _, l := Load(path, compileFlow)
	return l
}

// LintPaths lints every named suite file and every `*.eval.yml` under the
// named directories (skipping .git, .agentlab, node_modules and testdata,
// as the flow linter does). Named files that are not suites are ignored,
// so the same path list can be given to the flow linter and to this one.
func LintPaths(paths []string, compileFlow CompileFunc) (diag.List, error) {
	var all diag.List
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return all.Sorted(), fmt.Errorf("cannot read %s: %w", p, unwrap(err))
		}
		if !st.IsDir() {
			if IsSuiteFile(p) {
				all = append(all, Lint(p, compileFlow)...)
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", ".agentlab", "node_modules", "testdata":
					if path != p {
						return filepath.SkipDir
					}
				}
				return nil
			}
			if d.Type().IsRegular() && IsSuiteFile(path) {
				all = append(all, Lint(path, compileFlow)...)
			}
			return nil
		})
		if err != nil {
			return all.Sorted(), err
		}
	}
	return all.Sorted(), nil
}
