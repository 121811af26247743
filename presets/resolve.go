package presets

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/plan"
)

// Resolve turns the preset a flow names into rows: a built-in name, or a
// path to a *.patch.yml file (relative to baseDir, the flow's directory),
// whose base chain is followed and applied. An empty name means the
// default preset (standard).
//
// Diagnostics inside patch files carry those files' positions. A name that
// is neither a built-in nor an existing file yields one E-PRESET-UNKNOWN
// diagnostic with an empty File and no position: the caller knows where the
// name was written and should place it there.
//
// The returned preset is what the compiler embeds in the plan, so any
// change in preset behaviour changes the plan hash. Its Name is the name
// as written (slash-separated for paths), never an absolute path, so the
// plan does not depend on where the project is checked out.
func Resolve(nameOrPath string, baseDir string) (plan.Preset, diag.List) {
	if nameOrPath == "" {
		nameOrPath = DefaultName
	}
	if info, ok := Builtin(nameOrPath); ok {
		return plan.Preset{Name: info.Name, Rows: info.Rows}, nil
	}
	file := nameOrPath
	if !filepath.IsAbs(file) {
		file = filepath.Join(baseDir, file)
	}
	name := path.Clean(filepath.ToSlash(nameOrPath))
	if st, err := os.Stat(file); err != nil || st.IsDir() {
		var ds diag.List
		if LooksLikePath(nameOrPath) {
			ds.Errorf("", diag.Pos{}, CodeUnknownPreset, "check the path (in a flow it is relative to the flow file's directory)",
				"preset patch file %q does not exist", nameOrPath)
		} else {
			ds.Errorf("", diag.Pos{}, CodeUnknownPreset, unknownPresetFix(nameOrPath),
				"preset %q is neither a built-in preset nor a patch file", nameOrPath)
		}
		return plan.Preset{Name: name}, ds
	}
	rows, ds := loadPatch(file, nil)
	if ds.HasErrors() {
		return plan.Preset{Name: name}, ds
	}
	return plan.Preset{Name: name, Rows: rows}, ds
}

// LooksLikePath reports whether a preset name is meant as a file path
// rather than a built-in name.
func LooksLikePath(name string) bool {
	return strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")
}

// LintPatch checks a *.patch.yml file completely: its shape, its base chain
// (following bases that are files, detecting cycles), the application of
// every op, and the consistency of the resulting preset.
func LintPatch(path string) diag.List {
	_, ds := loadPatch(path, nil)
	return ds.Sorted()
}

// LoadPatch reads, resolves and applies a patch file, returning the
// resulting rows and every diagnostic found.
func LoadPatch(path string) ([]plan.PresetRow, diag.List) {
	rows, ds := loadPatch(path, nil)
	return rows, ds.Sorted()
}

// maxPatchBytes caps a patch file: it is read whole before it is parsed.
const maxPatchBytes = 16 << 20

// loadPatch reads file, resolves its base and applies its ops. stack holds
// the canonical paths of the patches that led here, to detect cycles.
func loadPatch(file string, stack []string) ([]plan.PresetRow, diag.List) {
	var ds diag.List
	data, err := fsutil.ReadFileCapped(file, maxPatchBytes, "keep a patch file under 16 MiB")
	if err != nil {
		msg := "cannot read the patch file"
		if errors.Is(err, fs.ErrNotExist) {
			msg = "the patch file does not exist"
		}
		ds.Errorf(file, diag.Pos{}, CodeRead, "check the path and its permissions", "%s: %v", msg, unwrapPathErr(err))
		return nil, ds
	}
	p, pds := ParsePatch(file, data)
	ds = append(ds, pds...)
	if p == nil || p.Base == "" {
		return nil, ds
	}
	stack = append(stack, canonicalPath(file))
	base, bds, ok := resolveBase(p, stack)
	ds = append(ds, bds...)
	if !ok {
		return nil, ds
	}
	rows, ads := p.Apply(base)
	ds = append(ds, ads...)
	// Report contradictions this patch introduces (those of the base were
	// reported in the base's own file).
	had := map[string]bool{}
	for _, pr := range consistency(base) {
		had[pr.msg] = true
	}
	for _, pr := range consistency(rows) {
		if !had[pr.msg] {
			ds.Errorf(p.File, p.causeOf(base, pr), CodeConsistency, pr.fix, "%s", pr.msg)
		}
	}
	return rows, ds
}

// causeOf is the position of the op that brings contradiction pr about:
// the first op after which the rows hold it. That op may act on another
// row than the one pr is about (disable: tool.run_code breaks the
// presentation row), so it is found by applying the ops one by one.
func (p *Patch) causeOf(base []plan.PresetRow, pr problem) diag.Pos {
	for i := range p.Ops {
		prefix := *p
		prefix.Ops = p.Ops[:i+1]
		rows, _ := prefix.Apply(base)
		for _, q := range consistency(rows) {
			if q.key == pr.key {
				return p.Ops[i].Pos
			}
		}
	}
	return p.posForRow(pr.row)
}

// resolveBase returns the rows of the patch's base.
func resolveBase(p *Patch, stack []string) ([]plan.PresetRow, diag.List, bool) {
	var ds diag.List
	if info, ok := Builtin(p.Base); ok {
		return info.Rows, nil, true
	}
	file := p.Base
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(p.File), file)
	}
	if st, err := os.Stat(file); err != nil || st.IsDir() {
		ds.Errorf(p.File, p.BasePos, CodeUnknownBase, unknownPresetFix(p.Base),
			"base %q is neither a built-in preset nor a patch file (looked for %s)", p.Base, filepath.ToSlash(file))
		return nil, ds, false
	}
	canon := canonicalPath(file)
	for i, s := range stack {
		if s == canon {
			chain := make([]string, 0, len(stack)-i+1)
			for _, c := range stack[i:] {
				chain = append(chain, filepath.Base(c))
			}
			chain = append(chain, filepath.Base(canon))
			ds.Errorf(p.File, p.BasePos, CodeCycle, "make one patch in the chain start from a built-in preset",
				"patch bases form a cycle: %s", strings.Join(chain, " -> "))
			return nil, ds, false
		}
	}
	rows, bds := loadPatch(file, stack)
	ds = append(ds, bds...)
	if bds.HasErrors() {
		return nil, ds, false
	}
	return rows, ds, true
}

// posForRow returns the position of the last op of p acting on id, or the
// base when the patch does not touch that row.
func (p *Patch) posForRow(id string) diag.Pos {
	pos := p.BasePos
	for _, op := range p.Ops {
		if op.ID == id {
			pos = op.Pos
		}
	}
	return pos
}

func canonicalPath(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return filepath.Clean(abs)
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
