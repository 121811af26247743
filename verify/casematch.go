package verify

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence/answer"
	"github.com/agentlab/agentlab/hashid"
)

// maxSuiteBytes caps the suite read back from an evaluation's record.
const maxSuiteBytes = 256 << 20

// evalSuite is what the cases check needs of the suite an evaluation
// stored (suite_artifact): the answer field, each variant's seed and each
// question's inputs.
type evalSuite struct {
	Answer   string `json:"answer"`
	Variants []struct {
		Name    string `json:"name"`
		Seed    int64  `json:"seed"`
		Repeats int64  `json:"repeats"`
	} `json:"variants"`
	Questions []struct {
		ID     string                     `json:"id"`
		Inputs map[string]json.RawMessage `json:"inputs"`
	} `json:"questions"`
}

// readSuite reads the suite the record's run.started names; nil when it
// cannot be read (the artifacts check says why).
func readSuite(evs []chain.Event, get func(hashid.ID) ([]byte, error)) *evalSuite {
	if len(evs) == 0 || evs[0].Type != chain.TypeRunStarted {
		return nil
	}
	var d struct {
		Suite string `json:"suite_artifact"`
	}
	if json.Unmarshal(evs[0].Data, &d) != nil {
		return nil
	}
	id, err := hashid.Parse(d.Suite)
	if err != nil {
		return nil
	}
	b, err := get(id)
	if err != nil {
		return nil
	}
	var s evalSuite
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// caseMatchesLog compares what an eval.case says with the log of its run
// and says what differs ("" when nothing does): the log's run.started
// holds the question's inputs and the variant's seed plus the repeat; the
// case succeeded exactly when the log ends in run.finished; and the
// case's answer is the text the answer rule (evidence/answer) picks from
// the outputs run.finished records. So a case cannot be given another
// case's log, nor a verdict's answer the run never gave. (Whether the
// answer passes is the evaluation's judgement, under its seal.)
func caseMatchesLog(c recordedCase, evs []chain.Event, s *evalSuite) string {
	if s == nil {
		return "the evaluation's suite cannot be read, so the case cannot be compared with its log"
	}
	var started struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
		Seed   int64                      `json:"seed"`
	}
	if len(evs) == 0 || json.Unmarshal(evs[0].Data, &started) != nil {
		return "its run.started cannot be read"
	}
	var inputs map[string]any
	found := false
	for _, q := range s.Questions {
		if q.ID != c.Question {
			continue
		}
		found = true
		inputs = map[string]any{}
		for k, want := range q.Inputs {
			got, ok := started.Inputs[k]
			if !ok || !sameJSON(got, want) {
				return fmt.Sprintf("its log's input %q is not the one question %s gives", k, c.Question)
			}
			var x any
			json.Unmarshal(want, &x)
			inputs[k] = x
		}
	}
	if !found {
		return fmt.Sprintf("the suite has no question %q", c.Question)
	}
	seedOK := false
	for _, vr := range s.Variants {
		if vr.Name == c.Variant {
			seedOK = started.Seed == vr.Seed+c.Repeat
		}
	}
	if !seedOK {
		return fmt.Sprintf("its log's seed %d is not variant %s's seed plus repeat %d", started.Seed, c.Variant, c.Repeat)
	}
	var outputs map[string]any
	finished := false
	if i := chain.SealedPrefix(evs); i >= 0 {
		var d struct {
			Status  string         `json:"status"`
			Outputs map[string]any `json:"outputs"`
		}
		if json.Unmarshal(evs[i].Data, &d) == nil && d.Status == "succeeded" {
			finished, outputs = true, d.Outputs
		}
	}
	if finished != (c.Status == "succeeded") {
		return fmt.Sprintf("its case says status %s, its log %s", c.Status, map[bool]string{true: "ends in run.finished", false: "does not finish"}[finished])
	}
	if want := answer.Cut(answer.Text(outputs, s.Answer, inputs), answer.MaxBytes); c.Answer != want {
		return fmt.Sprintf("its case's answer %q is not the answer its log records", answer.Cut(c.Answer, 60))
	}
	if tier := logTier(evs); c.Tier != tier {
		return fmt.Sprintf("its case's tier %s is not its log's (%s)", c.Tier, tier)
	}
	if c.Traceable != (c.Pass && c.Tier == "formal") {
		return "it is called traceable, though traceable means passed at tier formal"
	}
	return ""
}

// logTier is the issuance tier a case's log gives its answer: the worst of
// its contracted outputs' verdicts and run.finished's, "none" without
// any (as the evaluation reads it).
func logTier(evs []chain.Event) string {
	tier := ""
	worst := func(t string) { tier = answer.WorseTier(tier, t) }
	for _, e := range evs {
		switch e.Type {
		case chain.TypeNodeFinished:
			if !bytes.Contains(e.Data, []byte(`"contract"`)) {
				continue
			}
			var d struct {
				Contract *struct {
					Tier string `json:"tier"`
				} `json:"contract"`
			}
			if json.Unmarshal(e.Data, &d) == nil && d.Contract != nil {
				worst(d.Contract.Tier)
			}
		case chain.TypeRunFinished:
			var d struct {
				Tier string `json:"tier"`
			}
			if json.Unmarshal(e.Data, &d) == nil {
				worst(d.Tier)
			}
		}
	}
	if tier == "" {
		return "none"
	}
	return tier
}

// sameJSON compares two JSON values by their canonical forms.
func sameJSON(a, b json.RawMessage) bool {
	ca, err := canon.Canonicalize(a)
	if err != nil {
		return false
	}
	cb, err := canon.Canonicalize(b)
	return err == nil && bytes.Equal(ca, cb)
}
