package engine

import "fmt"

// noSnapshot says why a report cannot cite snapshot id: the run has no
// such snapshot, or it has one that a node the report does not follow
// recorded — a subflow's query (sub.q), or a parallel branch — which a
// report never cites, so that what it may cite never depends on timing
// and a subflow's evidence stays the subflow's.
func (c *citable) noSnapshot(id string) string {
	if c.recordedBy != nil {
		if node := c.recordedBy(id); node != "" {
			return fmt.Sprintf("snapshot %s was recorded by node %q, which is not upstream of this report in its flow (a subflow's queries and other branches' cannot be cited; compute a metric in the subflow and return it as an output instead); the snapshots it may cite are: %s",
				id, node, listOrNone(c.snapIDs))
		}
	}
	return fmt.Sprintf("there is no snapshot %s; the snapshots are: %s", id, listOrNone(c.snapIDs))
}
