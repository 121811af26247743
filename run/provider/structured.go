package provider

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// instructions is the system prompt a remote model gets: the request's
// own, plus what an output schema or a label set demands. The schema is
// also sent as a structured-output request where the API has one
// (OpenAI's response_format), but the instruction stays, because many
// OpenAI-compatible servers ignore response_format and Anthropic has no
// equivalent on every model.
func instructions(req Request) string {
	parts := []string{}
	if s := strings.TrimSpace(req.System); s != "" {
		parts = append(parts, s)
	}
	if req.OutputSchema != nil {
		if b, err := canon.Marshal(req.OutputSchema); err == nil {
			parts = append(parts, "Answer with a single JSON value and nothing else (no prose, no code fences). "+
				"It must be valid against this JSON Schema:\n"+string(b))
		}
	}
	if len(req.Labels) > 0 {
		parts = append(parts, "Answer with exactly one of these labels and nothing else: "+strings.Join(req.Labels, ", ")+".")
	}
	return strings.Join(parts, "\n\n")
}

// checkStructured extracts the JSON value of an answer (models like to
// wrap it in a code fence or a sentence) and validates it against schema.
// It returns the JSON text itself. An answer that is not JSON, or not valid
// against the schema, is a retryable failure whose feedback says why: the
// next attempt shows the model its answer and the reason (see complete).
// A schema the validator cannot compile is left to the node's own check.
func checkStructured(text string, schema map[string]any) (string, error) {
	notJSON := func() error {
		ae := failf(true, "the answer is not JSON although an output schema was given: %s", excerpt(text))
		ae.feedback = "Your answer is not JSON. Answer again with only the JSON value, valid against the output schema, and no other text."
		return ae
	}
	js, ok := extractJSON(text)
	if !ok {
		return "", notJSON()
	}
	doc, canonical, err := normalizeSchema(schema)
	if err != nil {
		return js, nil
	}
	sch, err := compileSchema(doc, canonical)
	if err != nil {
		return js, nil
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(js))
	if err != nil {
		return "", notJSON()
	}
	if err := sch.Validate(v); err != nil {
		summary := validationSummary(err)
		ae := failf(true, "the answer does not match the output schema: %s", excerpt(summary))
		ae.feedback = "Your answer does not match the output schema: " + summary + ". Answer again with only the JSON value, valid against the schema."
		return "", ae
	}
	return js, nil
}

// validationSummary turns a validation error into one line.
func validationSummary(err error) string {
	var ve *jsonschema.ValidationError
	msg := err.Error()
	if e, ok := err.(*jsonschema.ValidationError); ok {
		ve = e
		for len(ve.Causes) > 0 {
			ve = ve.Causes[0]
		}
		msg = ve.Error()
	}
	lines := strings.Fields(strings.ReplaceAll(msg, "\n", " "))
	return strings.Join(lines, " ")
}

// extractJSON finds the JSON value in text: the whole text, the body of a
// code fence, or the span from the first '{' or '[' to the last matching
// closer.
func extractJSON(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if json.Valid([]byte(t)) && t != "" {
		return t, true
	}
	if strings.HasPrefix(t, "```") {
		body := t[3:]
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			body = body[i+1:]
		}
		if j := strings.LastIndex(body, "```"); j >= 0 {
			body = body[:j]
		}
		if b := strings.TrimSpace(body); b != "" && json.Valid([]byte(b)) {
			return b, true
		}
	}
	for _, pair := range [][2]byte{{'{', '}'}, {'[', ']'}} {
		i := strings.IndexByte(t, pair[0])
		j := strings.LastIndexByte(t, pair[1])
		if i >= 0 && j > i {
			if c := []byte(t[i : j+1]); json.Valid(c) {
				return string(bytes.TrimSpace(c)), true
			}
		}
	}
	return "", false
}

// matchLabel maps an answer onto one of labels when it names one, with
// any quotes, trailing full stop or case difference removed; otherwise the
// answer is returned as it is, for the branch to report.
func matchLabel(text string, labels []string) string {
	t := strings.Trim(strings.TrimSpace(text), "\"'`*.。 \t\n")
	for _, l := range labels {
		if t == l {
			return l
		}
	}
	for _, l := range labels {
		if strings.EqualFold(t, l) {
			return l
		}
	}
	return text
}
