package compile

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/compile/tmpl"
	"github.com/agentlab/agentlab/diag"
)

// checkString runs the expression or template checker of the sibling
// packages; both report byte offsets inside the string.
func checkString(r *strRef, sc expr.Scope) []expr.Issue {
	if r.isExpr {
		return expr.Check(r.v.Str, r.ctx, sc)
	}
	return tmpl.Check(r.v.Str, sc)
}

// reportIssues turns issues inside a scalar into positioned diagnostics.
func reportIssues(l *diag.List, r *strRef, issues []expr.Issue) {
	for _, is := range issues {
		sev := is.Severity
		if sev == "" {
			sev = diag.Error
		}
		l.Add(r.src.file, r.src.posIn(r.v, is.Offset), sev, is.Code, is.Fix, "%s", is.Message)
	}
}

// checkStrings checks every expression and template of the flow, and the
// metric expressions of every pinned card, each with its node's scope.
//
// The strings go in batches: the scopes of a batch are built first (they
// use the graph's shared search state), then its strings are parsed in
// parallel (the checkers are pure functions), then its scopes are
// dropped, so that a large flow never holds every scope at once (they
// were a third of the memory of a 100,000-node compile). A batch's
// findings are reported, in order, before the next batch is scoped (which
// reads no diagnostics), so the output is deterministic and the same as
// reporting them all at the end.
func (f *flow) checkStrings() {
	refs := make([]*strRef, 0, len(f.dec.strs))
	for i := range f.dec.strs {
		refs = append(refs, &f.dec.strs[i])
	}
	for _, n := range f.nodes {
		cr := f.cards[n.id]
		if cr == nil || cr.loaded == nil {
			continue
		}
		strs := cr.loaded.strs
		if cr.oldKey != "" {
			strs = append(append([]strRef(nil), strs...), cr.loaded.prevStrs[cr.pinned]...)
		}
		for _, cs := range strs {
			r := cs
			r.node = n.idx
			refs = append(refs, &r)
		}
	}
	jobs := make([]strJob, 0, min(scopeBatch, len(refs)))
	for lo := 0; lo < len(refs); lo += scopeBatch {
		jobs = jobs[:0]
		for _, r := range refs[lo:min(lo+scopeBatch, len(refs))] {
			jobs = append(jobs, strJob{r: r, sc: f.scopeFor(r.v.Str, r.node, r)})
		}
		runJobs(jobs)
		for i := range jobs {
			j := &jobs[i]
			j.sc = expr.Scope{}
			j.issues = f.dropCascades(j.r, j.issues)
			if len(j.issues) > 0 {
				f.improveFixes(j.r, j.issues)
				reportIssues(f.l, j.r, j.issues)
			}
		}
	}
}

// scopeBatch is how many strings checkStrings scopes and checks at a time:
// enough to keep both cores busy, few enough that their scopes stay small.
const scopeBatch = 4096

// strJob is one string to check with its scope, and what the check found.
type strJob struct {
	r      *strRef
	sc     expr.Scope
	issues []expr.Issue
}

// runJobs checks the strings on every available core; small batches run
// inline, where starting goroutines would cost more than it saves.
func runJobs(jobs []strJob) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || len(jobs) < 256 {
		for i := range jobs {
			jobs[i].issues = checkString(jobs[i].r, jobs[i].sc)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (len(jobs) + workers - 1) / workers
	for lo := 0; lo < len(jobs); lo += chunk {
		hi := min(lo+chunk, len(jobs))
		wg.Add(1)
		go func(part []strJob) {
			defer wg.Done()
			for i := range part {
				part[i].issues = checkString(part[i].r, part[i].sc)
			}
		}(jobs[lo:hi])
	}
	wg.Wait()
}

// improveFixes rewrites the fix of an unknown-node or unknown-variable
// issue: the scope passed to the checker holds only the names the string
// spells, so the did-you-mean is computed here against everything visible,
// and a node that exists but does not run first is explained.
func (f *flow) improveFixes(r *strRef, issues []expr.Issue) {
	for i := range issues {
		is := &issues[i]
		if is.Offset < 0 || is.End > len(r.v.Str) || is.Offset >= is.End {
			continue
		}
		name := r.v.Str[is.Offset:is.End]
		switch {
		case strings.HasSuffix(is.Code, "-NODE"):
			if _, ok := f.byID[name]; ok && r.node >= 0 {
				is.Fix = "node \"" + name + "\" exists but does not run before \"" + f.nodes[r.node].id + "\"; add edges so that it does"
				continue
			}
			ids := f.visibleIDs(r.node)
			if s := strings.TrimSpace(didYouMean(name, ids)); s != "" {
				is.Fix = s
			} else {
				is.Fix = "check the id, or add an edge so that the node runs first; finished here: " + listSome(ids)
			}
		case strings.HasSuffix(is.Code, "-VAR"):
			vars := f.visibleVars(r.node)
			if s := strings.TrimSpace(didYouMean(name, vars)); s != "" {
				is.Fix = s
			} else {
				is.Fix = "set it upstream with assign_to (or a loop's collect); assigned here: " + listSome(vars)
			}
		}
	}
}

// dropCascades removes "unknown node" issues about nodes whose own
// definition already has an error: the first error says it all.
func (f *flow) dropCascades(r *strRef, issues []expr.Issue) []expr.Issue {
	out := issues[:0]
	for _, is := range issues {
		if strings.HasSuffix(is.Code, "-NODE") && is.Offset >= 0 && is.End <= len(r.v.Str) && is.Offset < is.End &&
			f.broken[r.v.Str[is.Offset:is.End]] {
			continue
		}
		out = append(out, is)
	}
	return out
}

// listSome names up to ten entries of a sorted list for a message.
func listSome(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	sort.Strings(names)
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
}

// visibleIDs lists the node ids visible from n (error path only: O(n)).
func (f *flow) visibleIDs(n int) []string {
	var out []string
	if n < 0 {
		return nil
	}
	for _, m := range f.nodes {
		if f.visible(m.idx, n) {
			out = append(out, m.id)
		}
	}
	return out
}

// visibleVars lists the variables visible from n (error path only).
func (f *flow) visibleVars(n int) []string {
	var out []string
	if n < 0 {
		return nil
	}
	for name, as := range f.assigners {
		for _, a := range as {
			if f.visible(a, n) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}
