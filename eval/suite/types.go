package suite

import (
	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/hashid"
)

// Format is the only suite format version (`eval: 1`).
const Format = 1

// Expectation kinds.
const (
	KindSQL      = "sql"
	KindMetric   = "metric"
	KindNoData   = "no_data"
	KindAsksBack = "asks_back"
)

// Suite is one parsed suite file. Fields tagged json form the suite's
// canonical identity (Hash); positions are kept aside for diagnostics.
type Suite struct {
	Format    int        `json:"eval"`
	Name      string     `json:"name"`
	Flow      string     `json:"flow"`           // relative to the suite file
	Pin       string     `json:"pin,omitempty"`  // b3:… the flow's plan must hash to
	Card      string     `json:"card,omitempty"` // name@version for metric: expectations
	Answer    string     `json:"answer,omitempty"`
	Settings  Settings   `json:"settings"`
	Variants  []Variant  `json:"variants"`
	Questions []Question `json:"questions"`

	// File is the suite's path; Pos holds positions of keys for later
	// checks (key path → position).
	File string              `json:"-"`
	Pos  map[string]diag.Pos `json:"-"`
}

// Settings are suite-wide limits; command-line flags override them.
type Settings struct {
	TimeoutS   float64 `json:"timeout_s,omitempty"`    // per question
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"` // whole evaluation
	Parallel   int     `json:"parallel,omitempty"`
}

// Variant is one configuration the questions run under.
type Variant struct {
	Name         string `json:"name"`
	Provider     string `json:"provider,omitempty"` // mock (default), script:FILE, openai, anthropic
	Model        string `json:"model,omitempty"`
	Preset       string `json:"preset,omitempty"`
	Judge        bool   `json:"judge,omitempty"`
	Repeats      int    `json:"repeats"`
	Seed         int64  `json:"seed,omitempty"`
	Price        *Price `json:"price,omitempty"`
	TokensPerRun int    `json:"tokens_per_run,omitempty"` // for the cost estimate
}

// Price is dollars per million tokens, for the cost estimate and caps.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok"`
}

// Question is one question of the suite.
type Question struct {
	ID        string         `json:"id"`
	Inputs    map[string]any `json:"inputs"`
	Expect    Expect         `json:"expect"`
	KeyPoints []string       `json:"key_points,omitempty"`
	TimeoutS  float64        `json:"timeout_s,omitempty"`

	Pos diag.Pos `json:"-"`
}

// Expect is what a correct answer contains. Exactly one kind is set.
type Expect struct {
	Kind   string `json:"kind"`
	SQL    string `json:"sql,omitempty"`
	Source string `json:"source,omitempty"`
	Metric string `json:"metric,omitempty"`
	Card   string `json:"card,omitempty"` // per-question override of Suite.Card

	SQLPos   diag.Pos `json:"-"`
	SQLStyle int      `json:"-"` // yaml.Style of the sql scalar, to map SQL positions
	Pos      diag.Pos `json:"-"`
}

// CardFor returns the card a metric expectation of q reads.
func (s *Suite) CardFor(q *Question) string {
	if q.Expect.Card != "" {
		return q.Expect.Card
	}
	return s.Card
}

// Hash identifies the suite's content: BLAKE3 of its canonical JSON.
// Reformatting the YAML does not change it; any change of a question,
// expectation, variant or setting does.
func (s *Suite) Hash() (hashid.ID, []byte, error) {
	b, err := canon.Marshal(s)
	if err != nil {
		return hashid.ID{}, nil, err
	}
	return hashid.Sum(b), b, nil
}

// Variant returns the named variant.
func (s *Suite) Variant(name string) (*Variant, bool) {
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i], true
		}
	}
	return nil, false
}
