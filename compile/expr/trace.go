package expr

import (
	"fmt"
	"sort"
	"strings"
)

// Untraced returns, for every metric of defs (name → expression) that does
// not trace to data, the reason why. A metric traces to data when it reads
// a query snapshot (a node for which snapshot returns true, through col,
// cell or rows, so that every cell it reads is recorded) or a declared
// input, reads nothing else, and every metric it uses traces too. A
// literal ("35000"), a model's text (len(nodes.head.text)), a variable, or
// anything computed from them does not: its value would be issued as
// evidence while nothing in the ledger backs it. Expressions that do not
// compile are left to the checks that report them.
func Untraced(defs map[string]string, snapshot func(node string) bool) map[string]string {
	type info struct {
		bad  string
		data bool
		uses []string
	}
	infos := make(map[string]*info, len(defs))
	for name, src := range defs {
		p, err := Compile(src, Metric)
		if err != nil {
			continue
		}
		in := &info{uses: p.Metrics()}
		for _, r := range p.Refs() {
			written := strings.Join(append([]string{r.Root}, r.Path...), ".")
			switch {
			case r.Root == "input":
				in.data = true
			case r.Root == "nodes" && len(r.Path) == 1 && snapshot(r.Path[0]):
				in.data = true
			case r.Root == "nodes" && len(r.Path) > 0 && snapshot(r.Path[0]):
				if in.bad == "" {
					in.bad = fmt.Sprintf("it reads %s, which records no cell", written)
				}
			case r.Root == "nodes":
				if in.bad == "" {
					in.bad = fmt.Sprintf("it reads %s, which is not a query or merge snapshot", written)
				}
			default:
				if in.bad == "" {
					in.bad = fmt.Sprintf("it reads %s, which is not data", written)
				}
			}
		}
		infos[name] = in
	}
	out := map[string]string{}
	done := map[string]bool{}
	var visit func(name string, stack map[string]bool) bool
	visit = func(name string, stack map[string]bool) bool {
		in, ok := infos[name]
		if !ok {
			return true // not compiled or not a metric: reported elsewhere
		}
		if done[name] {
			_, bad := out[name]
			return !bad
		}
		if stack[name] {
			return true // a cycle, reported elsewhere
		}
		stack[name] = true
		defer delete(stack, name)
		reason := in.bad
		data := in.data
		for _, u := range in.uses {
			if _, known := infos[u]; known {
				data = true
			}
			if !visit(u, stack) && reason == "" {
				reason = fmt.Sprintf("it uses metric %q, which does not trace to data", u)
			}
		}
		if reason == "" && !data {
			reason = "it is a literal: it reads no query snapshot and no input"
		}
		done[name] = true
		if reason != "" {
			out[name] = reason
			return false
		}
		return true
	}
	names := make([]string, 0, len(infos))
	for n := range infos {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		visit(n, map[string]bool{})
	}
	return out
}
