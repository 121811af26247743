package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/chain"
)

// toolUse is one tool an agent node was allowed, and what it did with it.
type toolUse struct {
	Node    string `json:"node"`
	Tool    string `json:"tool"`
	Calls   int    `json:"calls"`   // calls that ran (an error result counts: the tool was used)
	Refused int    `json:"refused"` // calls the permission rules refused
}

func newRunsToolsCmd(dir, format *string) *cobra.Command {
	return &cobra.Command{
		Use:   "tools [RUN]",
		Short: "Tools a run's agents were allowed but never called",
		Long: `List the tools each agent node of a sealed run was allowed (as its
agent.limits event records them) that it never called, or whose every call
the permission rules refused: candidates to take off the agent's tool list.
A malformed call does not count as a use. Tools called from run_code count
like direct calls.

--format json prints {"run":…,"unused":[{"node","tool","calls","refused"}…],
"tools":[…every allowed tool…]}. The view reads only the sealed events and
exits 0 whatever it finds. RUN defaults to the latest run.

Examples:
  agentlab runs tools
  agentlab runs tools 2026 --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(*format, "text", "json"); err != nil {
				return err
			}
			s, err := openPickedSealed(*dir, args)
			if err != nil {
				return err
			}
			return writeToolUse(cmd.OutOrStdout(), s.ID, agentToolUse(s.Events), *format)
		},
	}
}

// agentToolUse counts, for every tool an agent node was allowed, its calls
// and refusals, in the order the agents started and their tools were
// declared. An agent that ran more than once (a loop, a retry) keeps one
// row per tool.
func agentToolUse(evs []chain.Event) []toolUse {
	var rows []toolUse
	at := map[[2]string]int{}
	for _, e := range evs {
		var d struct {
			Tools     []string `json:"tools"`
			Tool      string   `json:"tool"`
			Refused   bool     `json:"refused"`
			Malformed bool     `json:"malformed"`
			RepeatOf  string   `json:"repeat_of"`
		}
		if json.Unmarshal(e.Data, &d) != nil {
			continue
		}
		switch e.Type {
		case "agent.limits":
			for _, t := range d.Tools {
				k := [2]string{e.Node, t}
				if _, ok := at[k]; !ok {
					at[k] = len(rows)
					rows = append(rows, toolUse{Node: e.Node, Tool: t})
				}
			}
		case "tool.result":
			i, ok := at[[2]string{e.Node, d.Tool}]
			switch {
			case !ok || d.Malformed:
			case d.Refused:
				rows[i].Refused++
			default:
				rows[i].Calls++
			}
		}
	}
	return rows
}

func writeToolUse(w io.Writer, run string, rows []toolUse, format string) error {
	unused := []toolUse{}
	for _, r := range rows {
		if r.Calls == 0 {
			unused = append(unused, r)
		}
	}
	if format == "json" {
		if rows == nil {
			rows = []toolUse{}
		}
		return writeJSON(w, map[string]any{"run": run, "unused": unused, "tools": rows})
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "run %s: no agent node was allowed any tool\n", run)
		return nil
	}
	fmt.Fprintf(w, "run %s: %d of %d allowed tool(s) never used\n", run, len(unused), len(rows))
	if len(unused) == 0 {
		return nil
	}
	t := newTable(w)
	t.Header("node", "tool", "why")
	for _, r := range unused {
		why := "never called"
		if r.Refused > 0 {
			why = fmt.Sprintf("every call refused (%d)", r.Refused)
		}
		t.Append(r.Node, r.Tool, why)
	}
	return t.Render()
}
