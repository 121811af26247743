package eval

import (
	"github.com/agentlab/agentlab/eval/stats"
	"github.com/agentlab/agentlab/hashid"
)

// ResultFormat is the current Result.Format.
const ResultFormat = 1

// CaseResult is the scored outcome of one case. Its Address is the BLAKE3
// id of its canonical JSON without the address: the same bytes are stored
// as the case's artifact, and shards merge by it.
type CaseResult struct {
	Question string `json:"question"`
	Variant  string `json:"variant"`
	Repeat   int    `json:"repeat"`
	Kind     string `json:"kind"`
	Pass     bool   `json:"pass"`
	// Reason says in one sentence why the case failed.
	Reason string `json:"reason,omitempty"`
	// Expected are the expected values (one per row of an SQL column),
	// Missing those not found among Answered, the quantities the answer
	// contains.
	Expected []float64 `json:"expected,omitempty"`
	Answered []float64 `json:"answered"`
	Missing  []float64 `json:"missing,omitempty"`
	// ExpectedSQL is the expectation's query; AnswerSQL the queries the
	// run issued, given only when none of them is the same query.
	ExpectedSQL string   `json:"expected_sql,omitempty"`
	AnswerSQL   []string `json:"answer_sql,omitempty"`
	Answer      string   `json:"answer,omitempty"` // the answer text, cut at 2,000 bytes
	Status      string   `json:"status"`
	Tier        string   `json:"tier"` // formal|degraded|withheld|none
	// Traceable is set when the case passed and the answer's issuance tier
	// is formal: every number in it was traced to the evidence.
	Traceable bool       `json:"traceable"`
	KeyPoints []KeyPoint `json:"key_points,omitempty"`
	Tokens    int        `json:"tokens"`
	CostUSD   float64    `json:"cost_usd"`
	Millis    float64    `json:"ms"`
	Run       string     `json:"run,omitempty"`
	Seal      string     `json:"seal,omitempty"`
	Address   string     `json:"address,omitempty"`

	// runLog is the event log of a run without a directory of its own
	// (Answer.Log) and runArtifacts the artifacts it references, until the
	// record stores them.
	runLog       []byte
	runArtifacts []string
}

// Key returns the case's key.
func (c *CaseResult) Key() Key { return Key{c.Question, c.Variant, c.Repeat} }

// KeyPoint is a model judge's verdict on one key point of a question. Key
// points are reported apart from accuracy: a model's judgement is not
// evidence in the sense numbers are.
type KeyPoint struct {
	Point   string `json:"point"`
	Verdict string `json:"verdict"` // supported|partly|unsupported|not_a_claim|not_judged
}

// seal computes the content address of c and returns its canonical bytes.
func (c *CaseResult) seal() ([]byte, error) {
	c.Address = ""
	b, err := c.appendCanonical(make([]byte, 0, 512+len(c.Answer)))
	if err != nil {
		return nil, err
	}
	c.Address = hashid.Sum(b).String()
	return b, nil
}

// Interval is a 95% Wilson score interval.
type Interval [2]float64

// VariantSummary aggregates the cases of one variant.
type VariantSummary struct {
	Variant string `json:"variant"`
	// Cases counts question × repeat; Passed those that passed.
	Cases    int      `json:"cases"`
	Passed   int      `json:"passed"`
	Accuracy float64  `json:"accuracy"`
	CI       Interval `json:"accuracy_ci95"`
	// Traceable counts passed cases whose tier is formal.
	Traceable          int            `json:"traceable"`
	TraceableAccuracy  float64        `json:"traceable_accuracy"`
	TraceableCI        Interval       `json:"traceable_ci95"`
	Tiers              map[string]int `json:"tiers"`
	Tokens             stats.Spread   `json:"tokens"`
	Cost               stats.Spread   `json:"cost_usd"`
	TotalCostUSD       float64        `json:"total_cost_usd"`
	Millis             stats.Spread   `json:"ms"`
	KeyPointsJudged    int            `json:"key_points_judged"`
	KeyPointsSupported int            `json:"key_points_supported"`
	// Questions counts questions; QuestionsPassed those whose every repeat passed.
	Questions       int `json:"questions"`
	QuestionsPassed int `json:"questions_passed"`
}

// Pair is an A/B comparison of two variants (or a baseline and the current
// result) over the questions both answered: a question passes under a
// variant when every repeat passed. P is the exact McNemar p-value; it is
// shown for information and never gates the exit code.
type Pair struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Both    int     `json:"both_pass"`
	OnlyA   int     `json:"only_a"`
	OnlyB   int     `json:"only_b"`
	Neither int     `json:"neither"`
	P       float64 `json:"p"`
}

// Shard is the part i of n (1-based) of a suite's questions.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ShardSeal names the evaluation and seal each merged shard came from.
type ShardSeal struct {
	Shard *Shard `json:"shard"`
	Eval  string `json:"eval"`
	Seal  string `json:"seal"`
}

// Result is the whole result of an evaluation, the --format json output
// and the --baseline input.
type Result struct {
	Format    int              `json:"format"`
	Eval      string           `json:"eval"`
	Suite     string           `json:"suite"` // b3:… of the suite's canonical JSON
	Name      string           `json:"name"`
	Flow      string           `json:"flow"`
	Plan      string           `json:"plan"`
	Shard     *Shard           `json:"shard"`
	Shards    []ShardSeal      `json:"shards,omitempty"` // set on merged results
	Status    string           `json:"status"`           // complete|incomplete
	Unrun     int              `json:"unrun"`            // cases not run (cost cap, cancellation)
	Estimate  Estimate         `json:"estimate"`
	Questions []string         `json:"questions"`
	Summary   []VariantSummary `json:"variants"`
	Pairs     []Pair           `json:"pairs"`
	Baseline  *Comparison      `json:"baseline"`
	Cases     []CaseResult     `json:"cases"`
	Seal      string           `json:"seal"`
	Exit      int              `json:"exit"`
}
