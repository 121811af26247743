package render

import (
	"bytes"

	"github.com/agentlab/agentlab/chain"
)

// ReportEvents returns the sealed events the report's evidence is loaded
// from (what LoadSealed needs): the event types the renderer reads (docs/formats.md, "Report":
// run.started, run.resumed, evidence.added, node.finished, run.finished),
// leaving out the node.finished events that cannot hold anything it reads
// from one: a metrics_artifact, a report_artifact, a contract (its tier) or
// a model node's answer (an output with a model).
// The renderer decodes the data of every node.finished it is given; for a
// run of 100,000 events that decoding was the largest part of the event
// checks of verify, for events it then ignores.
//
// The test is on the bytes and errs on the side of keeping: without a
// backslash, a JSON object can only have one of those keys at its top level
// if the quoted key appears literally in it, so an event is left out only
// when its data has no backslash and none of the quoted keys. What the
// renderer makes of the events is unchanged (TestEvidenceEventsSameDoc).
func ReportEvents(evs []chain.Event) []chain.Event {
	if end := chain.SealedPrefix(evs); end >= 0 {
		evs = evs[:end+1]
	}
	var out []chain.Event
	for _, e := range evs {
		switch e.Type {
		case chain.TypeRunStarted, TypeRunResumed, TypeEvidenceAdded, chain.TypeRunFinished:
		case chain.TypeNodeFinished:
			if !mayFeedReport(e.Data) {
				continue
			}
		default:
			continue
		}
		out = append(out, e)
	}
	return out
}

// reportKeys are the node.finished data keys the renderer reads, quoted as
// they appear in JSON.
var reportKeys = [][]byte{
	[]byte(`"` + KeyMetrics + `"`),
	[]byte(`"` + KeyReport + `"`),
	[]byte(`"` + KeyContract + `"`),
	[]byte(`"` + keyModel + `"`), // a model node's answer (runtext.go)
}

// mayFeedReport reports whether node.finished data may hold a key the
// renderer reads.
func mayFeedReport(data []byte) bool {
	if bytes.IndexByte(data, '\\') >= 0 {
		return true
	}
	for _, k := range reportKeys {
		if bytes.Contains(data, k) {
			return true
		}
	}
	return false
}
