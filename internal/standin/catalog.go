package standin

import (
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/run/provider"
)

// catalogHeading is the first line of the evidence catalog a report
// request carries (docs/evidence.md, "The evidence catalog").
const catalogHeading = "Citable evidence (cite only what is listed here"

var (
	catInput  = lazyre.New(`^- \[\[i:([^\]]+)\]\]$`)
	catMetric = lazyre.New(`^- \[\[m:([^\]]+)\]\] = (.*)$`)
	catSnap   = lazyre.New(`^- (Q[0-9]+) \(node ([^,)]*)(?:, source [^,)]*)?, ([0-9]+) rows?`)
	catCols   = lazyre.New(`^  columns: (.*)$`)
	catHit    = lazyre.New(`^- (K[0-9]+) from [^:]*: (.*)$`)
)

// parseCatalog reads the evidence catalog out of a system prompt: what a
// model may cite is exactly what the request showed it. ok is false when
// the prompt has no catalog (not a report request).
func parseCatalog(system string) (*provider.Evidence, bool) {
	i := strings.Index(system, catalogHeading)
	if i < 0 {
		return nil, false
	}
	ev := &provider.Evidence{}
	for _, line := range strings.Split(system[i:], "\n") {
		switch {
		case catInput.MatchString(line):
			ev.Inputs = append(ev.Inputs, catInput.FindStringSubmatch(line)[1])
		case catMetric.MatchString(line):
			m := catMetric.FindStringSubmatch(line)
			ev.Metrics = append(ev.Metrics, provider.EvidenceMetric{Name: m[1]})
		case catSnap.MatchString(line):
			m := catSnap.FindStringSubmatch(line)
			n, _ := strconv.Atoi(m[3])
			ev.Snapshots = append(ev.Snapshots, provider.EvidenceSnapshot{ID: m[1], Node: m[2], Rows: n})
		case catCols.MatchString(line) && len(ev.Snapshots) > 0:
			s := &ev.Snapshots[len(ev.Snapshots)-1]
			s.Columns = strings.Split(catCols.FindStringSubmatch(line)[1], ", ")
		case catHit.MatchString(line):
			m := catHit.FindStringSubmatch(line)
			ev.Knowledge = append(ev.Knowledge, provider.EvidenceHit{ID: m[1], Text: m[2]})
		}
	}
	return ev, true
}
