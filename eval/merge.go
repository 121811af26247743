package eval

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

// Merge combines the results of shards of one suite into one result.
// Cases are keyed by question/variant/repeat and identified by their
// content address: a case present in several inputs must have the same
// address in each (giving the same shard twice is harmless), two
// different results for one case are a conflict. Every case's address is
// re-computed from its content, so an edited result file is refused. The
// merged result lists each input's evaluation id and seal under shards;
// it is not sealed itself, its cases are.
//
// The parts are taken in shard order whatever order they are given in, so
// the same parts always merge into the same bytes.
func Merge(given []*Result) (*Result, error) {
	if len(given) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	rs := partsInShardOrder(given)
	first := rs[0]
	out := &Result{Format: ResultFormat, Suite: first.Suite, Name: first.Name, Flow: first.Flow, Plan: first.Plan, Status: "complete"}
	byKey := map[Key]int{}
	qseen := map[string]bool{}
	for _, r := range rs {
		if r.Suite != first.Suite || r.Plan != first.Plan {
			return nil, fmt.Errorf("cannot merge results of different suites or flows (%s/%s and %s/%s)", first.Suite, first.Plan, r.Suite, r.Plan)
		}
		if len(r.Shards) > 0 {
			out.Shards = append(out.Shards, r.Shards...)
		} else {
			out.Shards = append(out.Shards, ShardSeal{Shard: r.Shard, Eval: r.Eval, Seal: r.Seal})
		}
		if r.Status != "complete" {
			out.Status = r.Status
		}
		out.Unrun += r.Unrun
		out.Estimate.Cases += r.Estimate.Cases
		out.Estimate.Runs += r.Estimate.Runs
		out.Estimate.Tokens += r.Estimate.Tokens
		out.Estimate.CostUSD += r.Estimate.CostUSD
		for _, q := range r.Questions {
			if !qseen[q] {
				qseen[q] = true
				out.Questions = append(out.Questions, q)
			}
		}
		for _, c := range r.Cases {
			want := c.Address
			if _, err := c.seal(); err != nil {
				return nil, err
			}
			if c.Address != want {
				return nil, fmt.Errorf("case %s/%s#%d of eval %s does not match its address %s: the result file was changed", c.Question, c.Variant, c.Repeat, r.Eval, want)
			}
			if i, dup := byKey[c.Key()]; dup {
				if out.Cases[i].Address != c.Address {
					return nil, fmt.Errorf("case %s/%s#%d has two different results (%s and %s): were two shards given the same part?", c.Question, c.Variant, c.Repeat, out.Cases[i].Address, c.Address)
				}
				continue
			}
			byKey[c.Key()] = len(out.Cases)
			out.Cases = append(out.Cases, c)
		}
	}
	sort.SliceStable(out.Shards, func(i, j int) bool {
		a, b := out.Shards[i].Shard, out.Shards[j].Shard
		if a == nil || b == nil {
			return b != nil
		}
		return a.Index < b.Index
	})
	order := map[string]int{}
	for i, q := range out.Questions {
		order[q] = i
	}
	variants := variantNames(out.Cases)
	vorder := map[string]int{}
	for i, v := range variants {
		vorder[v] = i
	}
	sortCases(out.Cases, order, vorder)
	addrs := make([]string, len(out.Cases))
	for i := range out.Cases {
		addrs[i] = out.Cases[i].Address
	}
	b, _ := canon.Marshal(addrs)
	out.Eval = "merge-" + hashid.Sum(b).Hex()[:16]
	out.Summary = Summarize(out.Cases)
	out.Pairs = Pairs(out.Cases, variants)
	return out, nil
}

// partsInShardOrder returns the parts by shard index (a part that is not a
// shard, or is itself a merge, last), then by evaluation id and seal: the
// questions, the variants, the summed estimate and the merged id follow the
// parts' order, which must not be the order of the command line. A part
// given twice (the same bytes) is kept once, so that it is harmless for the
// shards list and the estimate too, not only for the cases.
func partsInShardOrder(given []*Result) []*Result {
	var rs []*Result
	seen := map[string]bool{}
	for _, r := range given {
		b, err := json.Marshal(r)
		if err == nil && seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		rs = append(rs, r)
	}
	index := func(r *Result) int {
		if r.Shard == nil {
			return int(^uint(0) >> 1)
		}
		return r.Shard.Index
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if ia, ib := index(a), index(b); ia != ib {
			return ia < ib
		}
		if a.Eval != b.Eval {
			return a.Eval < b.Eval
		}
		return a.Seal < b.Seal
	})
	return rs
}

func sortCases(cs []CaseResult, qorder, vorder map[string]int) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := &cs[i], &cs[j]
		if qa, qb := qorder[a.Question], qorder[b.Question]; qa != qb {
			return qa < qb
		}
		if va, vb := vorder[a.Variant], vorder[b.Variant]; va != vb {
			return va < vb
		}
		if a.Repeat != b.Repeat {
			return a.Repeat < b.Repeat
		}
		return strings.Compare(a.Question, b.Question) < 0
	})
}
