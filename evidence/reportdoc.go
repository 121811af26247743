package evidence

// ReportArtifact is what a report node stores (canonical JSON): the text
// its model wrote, with citation markers, after the repair loop; the
// system fills the values in from sealed snapshots when rendering.
type ReportArtifact struct {
	Node string `json:"node"`
	// Source is the final text with markers, exactly as accepted.
	Source string `json:"source"`
	// Attempts counts model calls including repairs.
	Attempts int `json:"attempts"`
	// Violations lists what is still wrong in Source (bare numbers,
	// unparseable or unresolvable markers, uncited claims) when the node
	// runs with on_violation: mark.
	Violations []Violation `json:"violations,omitempty"`
	// Claims is the per-sentence citation/judge result.
	Claims []Claim `json:"claims,omitempty"`
}

// Violation is a problem at a byte span of the report source.
type Violation struct {
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Kind    string `json:"kind"` // bare_number|bad_marker|unresolved|uncited_claim|unsupported
	Text    string `json:"text"`
	Message string `json:"message"`
}

// Claim is one conclusion sentence and how it is grounded.
type Claim struct {
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Cited   bool   `json:"cited"`
	Verdict string `json:"verdict,omitempty"` // supported|partly|unsupported|not_a_claim (judge)
}

// KnowledgeHit is one retrieve hit (K1…), stored as canonical JSON.
type KnowledgeHit struct {
	ID    string  `json:"id"`
	Node  string  `json:"node"`
	Path  string  `json:"path"`
	Text  string  `json:"text"`
	BM25  float64 `json:"bm25"`
	Embed float64 `json:"embed"`
	Score float64 `json:"score"`
	// Rerank is the rerank model's relevance score, when the retrieve
	// node reranked its hits (they are then in this order).
	Rerank *float64 `json:"rerank,omitempty"`
}
