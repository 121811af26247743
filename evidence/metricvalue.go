package evidence

// MetricValue is one computed metric as a metrics node records it: the
// formula, the formula with every input substituted, the value, and the
// exact snapshot cells it read, so that a verifier can recompute it from
// the sealed snapshots alone.
type MetricValue struct {
	Name     string   `json:"name"`
	Value    *float64 `json:"value"` // nil when it could not be computed
	Unit     string   `json:"unit,omitempty"`
	Decimals *int     `json:"decimals,omitempty"`
	Format   string   `json:"format,omitempty"` // number|percent|currency
	// Card is "name@version" when the metric comes from a pinned card.
	Card    string `json:"card,omitempty"`
	Formula string `json:"formula"`
	// Substituted is Formula with every cell, column and metric reference
	// replaced by its value: plain arithmetic over numbers with the
	// functions sum, avg, min, max, count, round, abs, which both the Go
	// and the browser verifier evaluate.
	Substituted string    `json:"substituted"`
	Cells       []CellRef `json:"cells"`
	Uses        []string  `json:"uses,omitempty"` // other metrics it reads
	Error       string    `json:"error,omitempty"`
}

// CellRef is one snapshot cell a metric read. Row -1 with an empty Column
// means the metric read the snapshot's row count.
type CellRef struct {
	Snapshot string `json:"snapshot"` // Q1…
	Node     string `json:"node"`
	Row      int    `json:"row"`
	Column   string `json:"column"`
	Value    any    `json:"value"`
}

// MetricSet is the artifact a metrics node stores (canonical JSON).
type MetricSet struct {
	Node    string        `json:"node"`
	Metrics []MetricValue `json:"metrics"`
}
