package engine

import (
	"fmt"
	"strings"
)

// earlyStops names the agents upstream of t that did not end on an answer
// of their own (a budget, the step backstop, the context window…), with
// the sentence their agent.stopped event gave. A schema failure downstream
// of such an agent is usually its doing, so the failure says where to
// look; it is "" when every upstream agent answered.
func (t *task) earlyStops() string {
	var lines []string
	for _, gn := range t.upstream() {
		if gn.n.Type != "agent" {
			continue
		}
		out, _ := t.sc.node(gn.n.ID)
		m, _ := out.(map[string]any)
		stop, _ := m["stop"].(map[string]any)
		reason, _ := stop["reason"].(string)
		if reason == "" || reason == StopAnswer {
			continue
		}
		sentence, _ := stop["sentence"].(string)
		lines = append(lines, fmt.Sprintf("agent %q stopped early (%s): %s", gn.n.ID, reason, sentence))
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n" + strings.Join(lines, "\n")
}
