package render

import (
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/evidence"
)

// nameSet is the table and column names the run's snapshots know, with
// its metrics and inputs as other names a bare `name` in backticks may
// be: the same rule (evidence.Names) the run engine applied when it
// checked the report, so a name is a violation in both or in neither.
func (d *Doc) nameSet() *evidence.Names {
	snaps := make([]*evidence.Snapshot, 0, len(d.Snapshots))
	for _, s := range d.Snapshots {
		snaps = append(snaps, s.Snap)
	}
	var extra []string
	for _, ms := range d.MetricSets {
		for _, m := range ms.Set.Metrics {
			extra = append(extra, m.Name)
		}
	}
	for k := range d.Inputs {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	return evidence.NamesOf(snaps, extra)
}

// unknownNames marks the names written in backticks in one text segment
// (starting at byte start of the source) that the evidence does not know,
// unless the report node already recorded them; each is listed in
// Problems.
func (d *Doc) unknownNames(r *Report, names *evidence.Names, text string, start int) []evidence.Violation {
	var vs []evidence.Violation
	for _, u := range names.Backticked(text) {
		a, b := start+u.Start, start+u.End
		if covering(r.Art.Violations, a, b) != nil {
			continue
		}
		vs = append(vs, evidence.Violation{Start: a, End: b, Kind: "unknown_name", Text: u.Text, Message: u.Reason})
		d.Problems = append(d.Problems, fmt.Sprintf("report %s: %s: %s", r.Node, u.Text, u.Reason))
	}
	return vs
}
