package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/compile/form"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/runlog"
)

// EvRunWaiting ends an attempt that paused at human nodes. Like
// run.failed it is not run.finished: the run continues (and is sealed)
// once the decisions are recorded and it is resumed.
const EvRunWaiting = "run.waiting"

// Interaction is how a run may involve the person at the terminal.
type Interaction struct {
	// Ask decides a human node inline (run --interactive on a terminal);
	// nil: the run pauses with status waiting instead.
	Ask func(ctx context.Context, q engine.HumanQuestion) (engine.HumanDecision, error)
	// ToolPrompter asks whether an agent may run a tool call that no rule
	// allows (a terminal); nil: such calls are refused with a sentence
	// naming the rule to add.
	ToolPrompter permission.Prompter
	// Yes allows what would otherwise be asked (--yes). It never approves
	// a human node.
	Yes bool
}

// ApproveCommand is the command that records an approval of node, ready
// to run as printed. A node inside a loop ("loop[2].gate") is quoted, so
// that a shell does not read the brackets as a pattern. It says who
// decides: `--by` the first assignee when the node has assignees (the
// others decide with their own name), else `--by …`, a placeholder for the
// person's name that approve refuses left as it is: a decision on the
// record names who made it, never whoever $USER happens to be. Each
// required field of the node's form is given as `--field NAME=…`, a
// placeholder refused the same way.
//
// dataDir is named with --data-dir unless it is the one agentlab finds by
// itself.
func ApproveCommand(dataDir, runID, node string, assignees []string, fm form.Form) string {
	by := form.Placeholder
	if len(assignees) > 0 {
		by = shellWord(assignees[0])
	}
	cmd := fmt.Sprintf("agentlab approve %s %s --decision approve --by %s", runID, shellWord(node), by)
	for _, f := range fm.Required() {
		cmd += " --field " + f.Name + "=" + form.Placeholder
	}
	return cmd + dataDirArg(dataDir)
}

// pause records a run that waits for people: the waiting list in run.json
// (with the command that decides each node) and a run.waiting event.
func pause(rl *runlog.Run, out *Outcome, res *engine.Result) (*Outcome, error) {
	nodes := make([]string, 0, len(res.Waiting))
	for _, w := range res.Waiting {
		out.Waiting = append(out.Waiting, runlog.Waiting{Node: w.Node, Command: ApproveCommand(dataDirOf(rl), rl.ID(), w.Node, w.Assignees, w.Form), Form: w.Form})
		nodes = append(nodes, w.Node)
	}
	if _, err := rl.Append(EvRunWaiting, "", map[string]any{"nodes": nodes}); err != nil {
		return nil, err
	}
	rec := rl.Record()
	rec.Status, rec.Waiting, rec.Error = runlog.StatusWaiting, out.Waiting, ""
	if err := rl.WriteRecord(rec); err != nil {
		return nil, err
	}
	return out, nil
}

// isRejection reports a run cancelled because a human node was rejected.
func isRejection(res *engine.Result) bool {
	return res.Err != nil && strings.Contains(res.Err.Error(), "has no reject edge, so the run is cancelled")
}

// ApproveOptions is one decision to record.
type ApproveOptions struct {
	DataDir string
	RunID   string
	Node    string
	// Answer is what the person said: only an explicit approval (approve,
	// approved, yes, y, true, 同意, 批准, 通过) approves.
	Answer  string
	By      string
	Comment string
	// Fields are the values of the node's form fields: a string is read
	// as text of the field's type (--field NAME=VALUE), any other value
	// must have the type already (--fields-file). An approval must fill
	// every required field; a rejection need not fill any.
	Fields map[string]any
	Epoch  *time.Time
}

// ApproveResult says what was recorded and where the node stands.
type ApproveResult struct {
	RunID    string
	Node     string
	Approved bool
	// Verdict is the node's state after this decision: approve, reject or
	// pending (more decisions are needed).
	Verdict    string
	Approvals  int
	Rejections int
	Resume     string // the command that continues the run
	// Form holds the typed values recorded with the decision (nil: none).
	Form map[string]any
}

// Approve records one person's decision on a human node the run is
// waiting at, as a human.decided event. It takes the run's lock, so it
// cannot interleave with a resume. The node is decided when the run is
// resumed; nothing is executed here.
func Approve(o ApproveOptions) (*ApproveResult, error) {
	if strings.TrimSpace(o.Answer) == "" {
		return nil, usage("--decision is empty; give approve or reject")
	}
	rl, err := runlog.Open(o.DataDir, o.RunID)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	rl.PinClock(o.Epoch)
	rec := rl.Record()
	if rec.Status != runlog.StatusWaiting {
		return nil, usage("run %s is not waiting for a decision (its status is %s); only a run paused at a human node takes decisions", o.RunID, rec.Status)
	}
	var names []string
	found := false
	for _, w := range rec.Waiting {
		names = append(names, w.Node)
		found = found || w.Node == o.Node
	}
	if !found {
		return nil, usage("run %s is not waiting at node %q; it is waiting at %s", o.RunID, o.Node, strings.Join(names, ", "))
	}
	var recorded []engine.RecordedEvent
	for _, e := range rl.Events() {
		recorded = append(recorded, engine.RecordedEvent{Type: e.Type, Node: e.Node, Data: e.Data})
	}
	wd, err := lastWaiting(rl.Events(), o.Node)
	if err != nil {
		return nil, err
	}
	by := strings.TrimSpace(o.By)
	if by == "" {
		return nil, usage("--by is empty and $USER is not set; say who decides with --by NAME")
	}
	if by == form.Placeholder {
		who := "NAME"
		if len(wd.Assignees) > 0 {
			who = strings.Join(wd.Assignees, " or ")
		}
		return nil, usage("--by still holds the placeholder %s; replace it with the name of the person who decides: --by %s", form.Placeholder, who)
	}
	if len(wd.Assignees) > 0 && !contains(wd.Assignees, by) {
		return nil, usage("%q is not an assignee of node %q; its assignees are %s (pass --by NAME)", by, o.Node, strings.Join(wd.Assignees, ", "))
	}
	if wd.Deadline != "" && wd.OnTimeout != "escalate" {
		now, _ := time.Parse(chain.TimeLayout, rl.Now())
		if dl, err := time.Parse(time.RFC3339Nano, wd.Deadline); err == nil && now.After(dl) {
			return nil, usage("the deadline of node %q (%s) has passed, so it is rejected (on_timeout: reject); apply it with agentlab resume %s", o.Node, dl.Format(time.RFC3339), o.RunID)
		}
	}
	d := engine.HumanDecision{By: by, Answer: strings.TrimSpace(o.Answer), Approved: engine.IsApproval(o.Answer), Comment: o.Comment}
	// The form is checked before anything is written: a refused approval
	// leaves the run exactly as it was.
	vals, err := wd.Form.Check(o.Fields, d.Approved)
	if err != nil {
		return nil, formUsage(o.Node, d.Approved, err)
	}
	if len(vals) > 0 {
		d.Form = vals
	}
	if _, err := rl.Append(engine.EvHumanDecided, o.Node, d); err != nil {
		return nil, err
	}
	recorded = append(recorded, engine.RecordedEvent{Type: engine.EvHumanDecided, Node: o.Node, Data: mustJSON(d)})
	prior, err := engine.NewPrior(recorded, nil)
	if err != nil {
		return nil, err
	}
	tally, err := engine.TallyDecisions(wd.Decision, wd.Assignees, prior.HumanDecisions(o.Node))
	if err != nil {
		return nil, err
	}
	return &ApproveResult{RunID: o.RunID, Node: o.Node, Approved: d.Approved, Verdict: tally.Verdict,
		Approvals: tally.Approvals, Rejections: tally.Rejections, Resume: ResumeCommand(o.DataDir, o.RunID), Form: d.Form}, nil
}

// formUsage turns a refused form into the usage error approve prints:
// one sentence per problem, each naming the field and the fix.
func formUsage(node string, approving bool, err error) error {
	what := "rejection"
	if approving {
		what = "approval"
	}
	var fe *form.Error
	if !errors.As(err, &fe) || len(fe.Problems) == 1 {
		return usage("the %s of %q was not recorded: %v", what, node, err)
	}
	lines := make([]string, len(fe.Problems))
	for i, p := range fe.Problems {
		lines[i] = "  - " + p.Sentence
	}
	return usage("the %s of %q was not recorded:\n%s", what, node, strings.Join(lines, "\n"))
}

// waitingEvent is the part of human.waiting that approve checks.
type waitingEvent struct {
	Assignees []string  `json:"assignees"`
	Decision  string    `json:"decision"`
	Deadline  string    `json:"deadline"`
	OnTimeout string    `json:"on_timeout"`
	Form      form.Form `json:"form"`
}

// lastWaiting finds the first human.waiting event of node (the one whose
// deadline counts).
func lastWaiting(evs []chain.Event, node string) (waitingEvent, error) {
	for _, e := range evs {
		if e.Type == engine.EvHumanWaiting && e.Node == node {
			var w waitingEvent
			if err := json.Unmarshal(e.Data, &w); err != nil {
				return w, fmt.Errorf("event human.waiting of %q cannot be read: %v", node, err)
			}
			return w, nil
		}
	}
	return waitingEvent{}, errors.New("run record says it waits at " + node + " but its events have no human.waiting for it; resume the run to record it")
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if strings.EqualFold(strings.TrimSpace(x), s) {
			return true
		}
	}
	return false
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
