package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/engine"
)

// Warning is something a person must know about a run that did not stop
// it: a tool call that was refused, a value a model cited wrongly, a model
// without a price, code that ran without isolation, a provider that had to
// retry. The CLI prints them in one block at the end of the run (a CI log
// is read from the bottom), and --format json carries them as warnings.
type Warning struct {
	Code    string `json:"code"`
	Node    string `json:"node,omitempty"`
	Message string `json:"message"`
}

// Codes of the end-of-run warnings (W-AGENT-CITE is the node.warning's
// own code).
const (
	WarnToolRefused   = "W-RUN-TOOL-REFUSED"
	WarnUnpriced      = "W-RUN-UNPRICED"
	WarnUnisolated    = "W-RUN-UNISOLATED"
	WarnProviderRetry = "W-RUN-PROVIDER-RETRY"
)

// maxWarningsPerKind bounds each kind of warning, so the block stays
// short; the last one says how many more there were.
const maxWarningsPerKind = 5

// runWarnings derives the end-of-run warnings from the run's events, so
// that they say exactly what the sealed record holds.
func runWarnings(events []chain.Event) []Warning {
	byKind := map[string][]Warning{}
	add := func(w Warning) { byKind[w.Code] = append(byKind[w.Code], w) }
	unpriced := map[string][]string{} // model → nodes
	retries := map[string][]string{}  // node → reasons
	var retryNodes []string
	for _, e := range events {
		if !mayWarn(e) {
			continue
		}
		var d map[string]any
		if len(e.Data) > 0 && json.Unmarshal(e.Data, &d) != nil {
			continue
		}
		switch e.Type {
		case engine.EvToolResult:
			if d["refused"] == true {
				add(Warning{Code: WarnToolRefused, Node: e.Node, Message: fmt.Sprintf("tool %v was refused: %v", d["tool"], d["error"])})
			}
			if d["backend"] == "process" {
				add(Warning{Code: WarnUnisolated, Node: e.Node, Message: "code ran without isolation (sandbox backend process); install bubblewrap, or see `agentlab doctor`"})
			}
		case "code.ran":
			if d["backend"] == "process" {
				add(Warning{Code: WarnUnisolated, Node: e.Node, Message: "code ran without isolation (sandbox backend process); install bubblewrap, or see `agentlab doctor`"})
			}
		case engine.EvNodeWarning:
			if d["code"] == engine.CodeCite {
				add(Warning{Code: engine.CodeCite, Node: e.Node, Message: fmt.Sprint(d["message"])})
			}
		case engine.EvProviderRetry:
			if _, ok := retries[e.Node]; !ok {
				retryNodes = append(retryNodes, e.Node)
			}
			retries[e.Node] = append(retries[e.Node], fmt.Sprint(d["reason"]))
		case engine.EvNodeFinished, engine.EvNodeFailed:
			out, _ := d["output"].(map[string]any)
			usage, _ := d["usage"].(map[string]any)
			if out != nil && usage == nil {
				usage, _ = out["usage"].(map[string]any)
			}
			if usage["cost_unknown"] == true {
				m, _ := out["model"].(string)
				if m == "" {
					m = "the model"
				}
				unpriced[m] = append(unpriced[m], e.Node)
			}
		}
	}
	models := make([]string, 0, len(unpriced))
	for m := range unpriced {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		add(Warning{Code: WarnUnpriced, Message: fmt.Sprintf("%s (node %s) has no price in [providers.prices], so the cost shown leaves it out; add %q = { input_per_mtok = …, output_per_mtok = … } to agentlab.toml",
			m, strings.Join(unpriced[m], ", "), m)})
	}
	for _, n := range retryNodes {
		rs := retries[n]
		add(Warning{Code: WarnProviderRetry, Node: n, Message: fmt.Sprintf("the provider retried %d time(s); last: %s", len(rs), rs[len(rs)-1])})
	}
	var out []Warning
	for _, code := range []string{WarnToolRefused, engine.CodeCite, WarnUnpriced, WarnUnisolated, WarnProviderRetry} {
		ws := byKind[code]
		if len(ws) > maxWarningsPerKind {
			more := len(ws) - (maxWarningsPerKind - 1)
			ws = append(ws[:maxWarningsPerKind-1:maxWarningsPerKind-1], Warning{Code: code, Message: fmt.Sprintf("and %d more like it (agentlab runs events shows them all)", more)})
		}
		out = append(out, ws...)
	}
	return out
}

// mayWarn tells the events runWarnings reads from the rest without
// decoding them: a run has many, and most say nothing to warn about.
func mayWarn(e chain.Event) bool {
	switch e.Type {
	case engine.EvToolResult, "code.ran", engine.EvNodeWarning, engine.EvProviderRetry:
		return true
	case engine.EvNodeFinished, engine.EvNodeFailed:
		// Only a price that is unknown warns (canonical JSON never
		// escapes the letters of a key).
		return bytes.Contains(e.Data, []byte(`"cost_unknown"`))
	}
	return false
}
