package expr

import (
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/diag"
)

// Ref is one reference to a name in scope, as far as it is known before
// run time: `nodes.pull.rows[0].gmv` is Ref{Root: "nodes", Path: ["pull",
// "rows", "0", "gmv"]}. A computed step (`vars.m[k]`) ends the path.
// Offset and End are byte offsets of the whole reference.
type Ref struct {
	Root   string
	Path   []string
	Offset int
	End    int
}

// PathSeg is one step of a reference as written, for CheckPath.
type PathSeg struct {
	Name   string // the property name, or a list index in decimal
	Index  bool   // written as [n] rather than .name
	Static bool   // false when the step is computed at run time
	Offset int
	End    int
}

// roots are the names every expression and template may start with.
var roots = []string{"input", "nodes", "vars", "item", "index"}

func isRoot(name string) bool {
	for _, r := range roots {
		if r == name {
			return true
		}
	}
	return false
}

// CheckPath checks a reference against the names in scope, with the same
// rules for expressions and templates. family is "EXPR" or "TMPL" and
// becomes part of each code (E-EXPR-INPUT, E-TMPL-INPUT, …). segs[0] is
// the root; checking stops at the first computed step.
func CheckPath(family string, segs []PathSeg, sc Scope) []Issue {
	if len(segs) == 0 {
		return nil
	}
	var out []Issue
	add := func(seg PathSeg, code, fix, format string, args ...any) {
		out = append(out, Issue{Offset: seg.Offset, End: seg.End, Severity: diag.Error,
			Code: "E-" + family + "-" + code, Message: fmt.Sprintf(format, args...), Fix: fix})
	}
	root := segs[0]
	var next *PathSeg
	if len(segs) > 1 && segs[1].Static && !segs[1].Index {
		next = &segs[1]
	}
	switch root.Name {
	case "input":
		if next != nil && !sc.Inputs[next.Name] {
			names := sortedKeys(sc.Inputs)
			add(*next, "INPUT", fixFor(next.Name, names, "declare it under inputs:, or use one of: "+listOf(names)),
				"unknown input %s", quote(next.Name))
		}
	case "vars":
		if next != nil && !sc.Vars[next.Name] {
			names := sortedKeys(sc.Vars)
			add(*next, "VAR", fixFor(next.Name, names,
				"set it upstream with assign_to (or a loop's collect); assigned here: "+listOf(names)),
				"variable %s is not assigned before this point", quote(next.Name))
		}
	case "nodes":
		if next == nil {
			break
		}
		fields, ok := sc.Nodes[next.Name]
		if !ok {
			ids := make([]string, 0, len(sc.Nodes))
			for id := range sc.Nodes {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			add(*next, "NODE", fixFor(next.Name, ids,
				"check the id, or add an edge so that the node runs first; finished here: "+listOf(ids)),
				"no node %s has finished before this point", quote(next.Name))
			break
		}
		if fields == nil || len(segs) < 3 || !segs[2].Static || segs[2].Index {
			break
		}
		f := segs[2]
		for _, have := range fields {
			if have == f.Name {
				checkSubfield(next.Name, f.Name, segs[3:], sc, add)
				return out
			}
		}
		sorted := append([]string(nil), fields...)
		sort.Strings(sorted)
		add(f, "FIELD", fixFor(f.Name, sorted, "its output has: "+listOf(sorted)),
			"node %s has no field %s", quote(next.Name), quote(f.Name))
	case "item", "index":
		if !sc.InLoop {
			add(root, "LOOP", "use it inside a loop body, or refer to the loop's collect variable after the loop",
				"%s is only defined inside a loop body", quote(root.Name))
		}
	default:
		add(root, "NAME", rootFix(root.Name, sc), "unknown name %s", quote(root.Name))
	}
	return out
}

// checkSubfield checks the step after nodes.<id>.<field> when the scope
// knows the fields of that object (a human node's form).
func checkSubfield(id, field string, rest []PathSeg, sc Scope, add func(PathSeg, string, string, string, ...any)) {
	subs, known := sc.Subfields[id][field]
	if !known || len(rest) == 0 || !rest[0].Static || rest[0].Index {
		return
	}
	s := rest[0]
	for _, have := range subs {
		if have == s.Name {
			return
		}
	}
	sorted := append([]string(nil), subs...)
	sort.Strings(sorted)
	add(s, "FIELD", fixFor(s.Name, sorted, "its "+field+" has: "+listOf(sorted)),
		"the %s of node %s has no field %s", field, quote(id), quote(s.Name))
}

// fixFor prefers a did-you-mean over the general advice.
func fixFor(name string, candidates []string, otherwise string) string {
	if s := didYouMean(name, candidates); s != "" {
		return s
	}
	return otherwise
}

// rootFix explains an unknown root name, guessing what was meant.
func rootFix(name string, sc Scope) string {
	switch name {
	case "null", "None", "nil", "nul", "NULL":
		return "write nil for the empty value"
	case "True", "False":
		return "booleans are lower-case: true, false"
	}
	if sc.Inputs[name] {
		return "inputs are reached through input: write input." + name
	}
	if sc.Vars[name] {
		return "variables are reached through vars: write vars." + name
	}
	if _, ok := sc.Nodes[name]; ok {
		return "node outputs are reached through nodes: write nodes." + name
	}
	if s := Suggest(name, roots); s != "" {
		return "did you mean " + quote(s) + "?"
	}
	return "names start with input., nodes., vars. (or item and index inside a loop); quote text as 'like this'"
}
