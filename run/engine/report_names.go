package engine

import (
	"sort"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/marker"
)

// nameSet is the table and column names the report may write: those of
// the snapshots it may cite (evidence.Names, the same rule the HTML
// report applies), with its metrics and inputs as other names a bare
// `name` in backticks may be.
func (c *citable) nameSet() *evidence.Names {
	if c.names != nil {
		return c.names
	}
	snaps := make([]*evidence.Snapshot, 0, len(c.snapIDs))
	for _, id := range c.snapIDs {
		snaps = append(snaps, c.snaps[id])
	}
	extra := append([]string(nil), c.mnames...)
	for k := range c.inputs {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	c.names = evidence.NamesOf(snaps, extra)
	return c.names
}

// nameMarkerExample is ", or cite one as [[t:sales]] or
// [[c:sales.amount]]" with a table and column of the report's own
// snapshots ("" when they name none).
func (c *citable) nameMarkerExample() string {
	for _, id := range c.snapIDs {
		if s := c.snaps[id]; s != nil && s.Source != "" && len(s.Columns) > 0 {
			return ", or cite one as [[t:" + s.Source + "]] or [[c:" + s.Source + "." + s.Columns[0] + "]]"
		}
	}
	return ""
}

// unknownNames finds the names written in backticks, outside markers,
// that no snapshot the report may cite knows.
func (c *citable) unknownNames(segs []marker.Segment) []evidence.Violation {
	var vs []evidence.Violation
	for _, sg := range segs {
		if sg.Marker != nil {
			continue
		}
		for _, u := range c.nameSet().Backticked(sg.Text) {
			vs = append(vs, evidence.Violation{Start: sg.Start + u.Start, End: sg.Start + u.End, Kind: vUnknownName, Text: u.Text,
				Message: u.Reason + "; write a name a query of this run read" + c.nameMarkerExample()})
		}
	}
	return vs
}
