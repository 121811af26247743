package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/compile/form"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/engine"
)

func init() { register("approve", newApproveCmd) }

func newApproveCmd() *cobra.Command {
	var (
		decision, by, comment, dir, format, fieldsFile string
		fields                                         []string
	)
	cmd := &cobra.Command{
		Use:   "approve RUN NODE --decision approve|reject [--field NAME=VALUE]...",
		Short: "Record a person's decision on a human node a run is waiting at",
		Long: `Record one person's decision on a human node of a run that paused there
(exit code 3 of agentlab run). The decision is appended to the run's event log
as a human.decided event, under the run's lock; the node is decided when the
run is resumed (agentlab resume RUN), which also evaluates its deadline.

Only an explicit approval approves: approve, approved, yes, y, true, 同意,
批准 or 通过 (case-insensitive). Any other answer is recorded as a rejection.
Nothing ever approves by itself: not --yes, not a deadline.

With decision: all or quorum:M on the node, each assignee records their own
decision (--by); a person's latest decision replaces their earlier one.
RUN may be a unique prefix of a run id.

A node with a form: takes the values of its fields with --field NAME=VALUE
(repeatable) or --fields-file FILE (a JSON object; --field wins). Values are
typed by the form: a number field takes 12.5, an integer field 3, a boolean
field true or false, a field with an enum one of its values. An approval must
fill every required field; a rejection needs none (a person can always
reject), but every value given must still fit the form. A decision whose
values do not fit is refused with exit code 2 and nothing is recorded. The
values go into the human.decided event and downstream nodes read them as
nodes.NODE.form.NAME. agentlab runs show RUN lists the fields to fill; the
command it suggests has --field NAME=… for each required field: replace …
with the value (a value left as … is refused).

Exit codes: 0 recorded, 2 usage (unknown run or node, a run that is not
waiting, a person who is not an assignee, form values that do not fit the
form, a run in use).

Examples:
  agentlab approve 20261129T101500Z-1a2b3c gate --decision approve
  agentlab approve 2026 gate --decision approve --field ticket=OPS-12 --field risk=low
  agentlab approve 2026 gate --decision reject --by alice --comment "numbers look off"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if decision == "" {
				return exitf(exitUsage, "--decision is required: approve or reject")
			}
			values, err := readFields(fieldsFile, fields)
			if err != nil {
				return err
			}
			d := dataDir(dir)
			id, err := pickRun(d, args[0])
			if err != nil {
				return err
			}
			if by == "" {
				by = os.Getenv("USER")
			}
			epoch, err := run.SourceDateEpoch()
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			res, err := run.Approve(run.ApproveOptions{DataDir: d, RunID: id, Node: args[1], Answer: decision, By: by, Comment: comment, Fields: values, Epoch: epoch})
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				obj := map[string]any{
					"run": res.RunID, "node": res.Node, "approved": res.Approved, "verdict": res.Verdict,
					"approvals": res.Approvals, "rejections": res.Rejections, "resume": res.Resume,
				}
				if res.Form != nil {
					obj["form"] = res.Form
				}
				return enc.Encode(obj)
			}
			what := "rejection"
			if res.Approved {
				what = "approval"
			}
			fmt.Fprintf(out, "recorded %s of %s by %s on run %s\n", what, res.Node, by, res.RunID)
			for _, k := range formKeys(res.Form) {
				fmt.Fprintf(out, "  %s: %s\n", k, formValueText(res.Form[k]))
			}
			switch res.Verdict {
			case engine.VerdictPending:
				fmt.Fprintf(out, "%s is still waiting (%d approvals, %d rejections so far)\n", res.Node, res.Approvals, res.Rejections)
			default:
				fmt.Fprintf(out, "%s is decided: %s; continue with:\n  %s\n", res.Node, res.Verdict, res.Resume)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&decision, "decision", "", "approve or reject (only an explicit approval approves)")
	fl.StringVar(&by, "by", "", "who decides (default $USER)")
	fl.StringVar(&comment, "comment", "", "a comment kept with the decision")
	fl.StringArrayVar(&fields, "field", nil, "a value of the node's form as NAME=VALUE (repeatable; overrides --fields-file)")
	fl.StringVar(&fieldsFile, "fields-file", "", "a JSON object of form values")
	fl.StringVar(&dir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	fl.StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

// readFields merges --fields-file and --field NAME=VALUE (which wins).
// Values are typed against the node's form by run.Approve.
func readFields(file string, pairs []string) (map[string]any, error) {
	vals := map[string]any{}
	if file != "" {
		if err := readJSONObjectFile("--fields-file", file, &vals); err != nil {
			if _, ok := err.(*exitError); ok {
				return nil, err
			}
			return nil, exitf(exitUsage, "--fields-file %s must hold one JSON object of form values, e.g. {\"ticket\": \"OPS-12\"}: %v", file, err)
		}
	}
	given, err := form.ParseAssignments(pairs)
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	for k, v := range given {
		vals[k] = v
	}
	return vals, nil
}

// formValueText writes a recorded form value as it was given.
func formValueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func formKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
