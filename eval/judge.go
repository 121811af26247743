package eval

import (
	"context"
	"strings"

	"github.com/agentlab/agentlab/run/provider"
)

// VerdictNotJudged marks a key point of a variant with judge: false.
const VerdictNotJudged = "not_judged"

// Judge decides whether an answer covers a key point.
type Judge interface {
	Judge(ctx context.Context, c Case, answer, point string) (verdict string, usage provider.Usage, err error)
}

// ProviderJudge asks a model provider, with the verdict labels the report
// node's judge uses (provider.Verdicts).
type ProviderJudge struct {
	Provider provider.Provider
	Model    string
}

// Judge implements Judge.
func (j ProviderJudge) Judge(ctx context.Context, c Case, answer, point string) (string, provider.Usage, error) {
	req := provider.Request{
		Node:  "eval." + c.Question.ID,
		Kind:  provider.KindJudge,
		Model: j.Model,
		System: "You check whether an answer makes a given point. Answer with exactly one label: " +
			strings.Join(provider.Verdicts, ", ") + ".",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "Point: " + point + "\n\nAnswer:\n" + answer}},
		Labels:   provider.Verdicts,
		Seed:     c.Variant.Seed + int64(c.Repeat),
	}
	resp, err := j.Provider.Complete(ctx, req, nil)
	if err != nil {
		return "", provider.Usage{}, err
	}
	v := strings.TrimSpace(resp.Text)
	if !containsStr(provider.Verdicts, v) {
		v = "unsupported"
	}
	return v, resp.Usage, nil
}
