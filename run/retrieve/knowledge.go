package retrieve

import "github.com/agentlab/agentlab/evidence"

// Knowledge turns a hit into the sealed evidence record for it; id (K1, K2,
// …) is assigned by the run's ledger, node is the retrieve node's id.
func (h Hit) Knowledge(id, node string) evidence.KnowledgeHit {
	return evidence.KnowledgeHit{ID: id, Node: node, Path: h.Path, Text: h.Text, BM25: h.BM25, Embed: h.Embed, Score: h.Score}
}
