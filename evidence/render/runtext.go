package render

import (
	"sort"
	"strconv"
)

// NodeText is the text one model node answered, as its node.finished
// event records it.
type NodeText struct {
	Node string `json:"node"`
	Text string `json:"text"`
}

// keyModel marks a model node's output: llm, agent and supervisor nodes
// answer {text, model, usage, …}.
const keyModel = "model"

// addText keeps the answer of a model node (an output with a text and a
// model; a report node's text is shown as its narrative instead), so that
// a run's report shows what every model said, report node or not.
func (d *Doc) addText(node string, data map[string]any) {
	if _, isReport := data[KeyReport]; isReport {
		return
	}
	out, ok := data["output"].(map[string]any)
	if !ok {
		return
	}
	text, ok := out["text"].(string)
	if _, hasModel := out[keyModel]; !ok || !hasModel {
		return
	}
	d.Texts = append(d.Texts, NodeText{Node: node, Text: text})
}

// runText writes what the run produced besides its narrative: the outputs
// (run.finished) and every model node's answer, each an element the
// verifiers re-fill from the sealed events (data-k "o" and "x").
func (w *htmlWriter) runText(d *Doc) {
	w.s("<section class=\"al-run\">\n<h2 class=\"al-label\">Outputs</h2>\n")
	if len(d.Outputs) == 0 {
		w.s("<p class=\"al-label\">This run returned no outputs.</p>\n")
	} else {
		names := make([]string, 0, len(d.Outputs))
		for k := range d.Outputs {
			names = append(names, k)
		}
		sort.Strings(names)
		w.s("<dl class=\"al-outputs\">\n")
		for _, k := range names {
			w.s("<dt")
			w.a("data-k", "on")
			w.a("data-n", k)
			w.s(">")
			w.t(k)
			w.s("</dt><dd class=\"al-text\"")
			w.a("data-k", "o")
			w.a("data-n", k)
			w.s(">")
			w.t(FormatInput(d.Outputs[k]))
			w.s("</dd>\n")
		}
		w.s("</dl>\n")
	}
	if len(d.Texts) > 0 {
		w.s("<h2 class=\"al-label\">Model answers</h2>\n")
		for i, nt := range d.Texts {
			w.s("<article><h3")
			w.a("data-k", "node")
			w.a("data-n", nt.Node)
			w.s(">")
			w.t(nt.Node)
			w.s("</h3>\n<div class=\"al-text al-answer\"")
			w.a("data-k", "x")
			w.a("data-i", strconv.Itoa(i))
			w.s(">")
			w.t(nt.Text)
			w.s("</div>\n</article>\n")
		}
	}
	w.s("</section>\n")
}
