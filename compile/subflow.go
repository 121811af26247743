package compile

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
)

// subflows compiles the flow of every subgraph node (recursively, with
// the same options), checks pins and inputs, and returns the plans by hash.
func (f *flow) subflows(s *session) map[string]*plan.Plan {
	out := map[string]*plan.Plan{}
	for _, n := range f.nodes {
		if n.typ != "subgraph" || n.str("flow") == "" {
			continue
		}
		at := n.v.Get("flow")
		if !f.inside(at, n.str("flow"), "the subflow of node "+n.id) {
			continue
		}
		path := filepath.Join(f.dir, n.str("flow"))
		if s.visiting[absPath(path)] {
			f.l.Errorf(f.src.file, at.Pos(), "E-GRAPH-SUBFLOW-CYCLE", "a flow cannot include itself, directly or through other subflows",
				"subgraph %q includes %s, which is already being compiled (a cycle of subflows)", n.id, n.str("flow"))
			continue
		}
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			f.l.Errorf(f.src.file, at.Pos(), "E-GRAPH-SUBFLOW", "check the path; it is relative to the flow file's directory",
				"subflow file %q does not exist", n.str("flow"))
			continue
		}
		// A subflow is held to the tier of the flow that includes it.
		sp, sl := s.compileFile(path, f.effTier)
		if sp == nil {
			errs, _ := sl.Counts()
			// The subflow's own findings carry its positions; surface them.
			*f.l = append(*f.l, sl...)
			f.l.Errorf(f.src.file, at.Pos(), "E-GRAPH-SUBFLOW", "fix the subflow "+n.str("flow")+" first",
				"subflow %s does not compile (%d errors)", n.str("flow"), errs)
			continue
		}
		h, err := sp.Hash()
		if err != nil {
			continue
		}
		hs := h.String()
		if pin := n.str("pin"); pin != "" && pin != hs {
			f.l.Errorf(f.src.file, n.v.Get("pin").Pos(), "E-GRAPH-PIN-MISMATCH", "if the change to the subflow is intended, set `pin: "+hs+"`",
				"subflow %s has plan hash %s, not the pinned %s", n.str("flow"), hs, pin)
		}
		f.checkSubInputs(n, sp)
		n.fields["plan"] = hs
		if f.subOut == nil {
			f.subOut = map[string][]string{}
		}
		f.subOut[n.id] = subflowOutputFields(sp)
		f.liftSources(n, sp)
		out[hs] = sp
	}
	return out
}

// checkSubInputs checks a subgraph's inputs against the subflow's.
func (f *flow) checkSubInputs(n *nodeInfo, sp *plan.Plan) {
	given, _ := n.fields["inputs"].(map[string]any)
	iv := n.v.Get("inputs")
	var names []string
	for k := range sp.Inputs {
		names = append(names, k)
	}
	sort.Strings(names)
	if iv != nil && iv.Kind == vMap {
		for _, k := range iv.Keys() {
			if _, ok := sp.Inputs[k.Str]; !ok {
				f.l.Errorf(f.src.file, k.Pos(), "E-GRAPH-SUBFLOW-INPUT", "pass only inputs the subflow declares: "+strings.Join(names, ", "),
					"subflow %s has no input %q%s", n.str("flow"), k.Str, suffix(didYouMean(k.Str, names)))
			}
		}
	}
	for _, k := range names {
		in := sp.Inputs[k]
		if _, ok := given[k]; !ok && in.Required && in.Default == nil {
			f.l.Errorf(f.src.file, n.v.Get("flow").Pos(), "E-GRAPH-SUBFLOW-INPUT", "add `inputs: {"+k+": …}` to the subgraph node",
				"subflow %s requires input %q", n.str("flow"), k)
		}
	}
}

// preset resolves the flow's preset; diagnostics without a file are
// placed at the `preset:` key.
func (f *flow) preset() plan.Preset {
	name, _ := f.top["preset"].(string)
	p, ds := presets.Resolve(name, f.dir)
	at := f.root.Get("preset")
	for _, d := range ds {
		if d.File == "" {
			d.File = f.src.file
			pos := at.Pos()
			if at == nil {
				pos = diag.Pos{Line: 1, Col: 1}
			}
			d.Line, d.Col = pos.Line, pos.Col
		}
		*f.l = append(*f.l, d)
	}
	f.checkPresetSandbox(p, at)
	return p
}

// subflowOutputFields lists the fields a subgraph returns: the union of
// the fields of its subflow's top-level output nodes (run/engine's
// outputs), sorted.
func subflowOutputFields(sp *plan.Plan) []string {
	seen := map[string]bool{}
	out := []string{}
	for i := range sp.Nodes {
		if sp.Nodes[i].Type != "output" {
			continue
		}
		for k := range sp.Nodes[i].Map("fields") {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// liftSources adds the data sources a subflow declares to the ones this
// flow's plan declares, their paths made relative to this flow's
// directory: a run has one database, loaded before it starts, and a
// subflow's db_query tools read it like the parent's. A name the parent
// (or another subflow) declares with a different definition is an error,
// since one of the two would silently read the other's data.
func (f *flow) liftSources(n *nodeInfo, sp *plan.Plan) {
	names := make([]string, 0, len(sp.Sources))
	for k := range sp.Sources {
		names = append(names, k)
	}
	sort.Strings(names)
	own, _ := f.top["sources"].(map[string]any)
	for _, k := range names {
		s := sp.Sources[k]
		if s.Path != "" && !filepath.IsAbs(s.Path) {
			s.Path = filepath.ToSlash(filepath.Join(filepath.Dir(n.str("flow")), s.Path))
		}
		var prev *plan.Source
		where := "another subflow"
		if m, ok := own[k].(map[string]any); ok {
			ps := plan.Source{MaskColumns: strList(m["mask_columns"])}
			ps.Kind, _ = m["kind"].(string)
			ps.Path, _ = m["path"].(string)
			ps.Table, _ = m["table"].(string)
			if rc, ok := m["row_cap"].(int64); ok {
				ps.RowCap = int(rc)
			}
			ps.Path = filepath.ToSlash(filepath.Clean(ps.Path))
			prev, where = &ps, "this flow"
		} else if x, ok := f.subSources[k]; ok {
			prev = &x
		}
		if prev != nil {
			if !sameSource(*prev, s) {
				f.l.Errorf(f.src.file, n.v.Get("flow").Pos(), "E-GRAPH-SUBFLOW-SOURCE",
					"give the subflow's source another name, or declare it the same way in both flows",
					"subflow %s declares source %q as %s %s, but %s declares it as %s %s", n.str("flow"), k, s.Kind, s.Path, where, prev.Kind, prev.Path)
			}
			continue
		}
		if f.subSources == nil {
			f.subSources = map[string]plan.Source{}
		}
		f.subSources[k] = s
	}
}

func sameSource(a, b plan.Source) bool {
	return a.Kind == b.Kind && filepath.Clean(a.Path) == filepath.Clean(b.Path) && a.Table == b.Table &&
		a.RowCap == b.RowCap && strings.Join(a.MaskColumns, ",") == strings.Join(b.MaskColumns, ",")
}

// CodePresetSandbox is a preset whose sandbox row asks for the process
// backend in a flow that runs code: the backend is the operator's, and a
// preset may only ask for the stricter bwrap, so the row is not followed.
const CodePresetSandbox = "W-PRESET-SANDBOX"

// checkPresetSandbox warns when the preset asks for sandbox process and
// the flow runs code (a code node, a command tool, an agent in code mode).
func (f *flow) checkPresetSandbox(p plan.Preset, at *V) {
	a := presets.Effective(p.Rows)
	if a.Sandbox != "process" {
		return
	}
	runs := false
	for _, n := range f.nodes {
		if n.typ == "code" || (n.typ == "agent" && (a.Presentation != presets.PresentNative || n.str("presentation") == presets.PresentPTC || n.str("presentation") == presets.PresentBoth)) {
			runs = true
		}
	}
	if tools, ok := f.top["tools"].(map[string]any); ok {
		for _, t := range tools {
			if m, ok := t.(map[string]any); ok && m["command"] != nil {
				runs = true
			}
		}
	}
	if !runs {
		return
	}
	pos := diag.Pos{Line: 1, Col: 1}
	if at != nil {
		pos = at.Pos()
	}
	f.l.Warnf(f.src.file, pos, CodePresetSandbox,
		"nothing to do to stay safe; to pin the backend for byte-identical seals, set AGENTLAB_SANDBOX or ask the preset for bwrap",
		"preset %q asks for sandbox backend process, but the sandbox is the operator's: a preset may only ask for the stricter bwrap, so this flow's code runs in the backend AGENTLAB_SANDBOX (or the machine) chooses", p.Name)
}
