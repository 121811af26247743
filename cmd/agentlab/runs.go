package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
)

func init() { register("runs", newRunsCmd) }

func newRunsCmd() *cobra.Command {
	var dir, format, storeURL string
	cmd := &cobra.Command{
		Use:   "runs [list|show [RUN]|events [RUN]|evidence [RUN]|tools [RUN]|using CARD@VERSION|extract [RUN]|review [RUN]]",
		Short: "Inspect runs: list them, show one, print its events, audit them",
		Long: `Inspect the runs in the data directory.

  list         every run, newest first (the default)
  show [RUN]   one run's record and node states
  events [RUN] the run's event log, one line per event

Audit views, read from a run's sealed events and artifacts only:

  evidence [RUN]       every number of its outputs and reports: sourced,
                       suspicious or without evidence, with its trail
  tools [RUN]          tools its agents were allowed but never called
  using CARD@VERSION   the runs that used a metric card version
  extract [RUN] -o F   a flow of what an exploratory run executed
  review [RUN]         anomalies of its events, by rule

RUN defaults to the latest run and may be a unique prefix of a run id.

With --store, list shows the runs a shared store holds (those whose SEAL is
written), each with its seal; pull one with agentlab pull RUN --store URL.

--format json prints one JSON object:
{"runs":[…]} for list (with --store each run has id, seal, plan, kind,
origin, tier, created, finished), the run record with "nodes" for show, and
{"run":…,"events":[…]} for events (events exactly as stored).

Examples:
  agentlab runs
  agentlab runs show
  agentlab runs events 2026 --format json
  agentlab runs list --store s3://team-runs/agentlab`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownSubcommand("agentlab runs", args[0], runsSubcommands)
			}
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			return listRuns(cmd.OutOrStdout(), dataDir(dir), storeURL, format)
		},
	}
	cmd.Flags().StringVar(&storeURL, "store", "", "the runs of this shared store (s3://BUCKET/PREFIX?endpoint=URL&path_style=true) instead of the data dir")
	cmd.PersistentFlags().StringVar(&dir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	cmd.PersistentFlags().StringVar(&format, "format", "text", "output format: text|json")
	list := &cobra.Command{
		Use:   "list",
		Short: "List every run, newest first",
		Long: `List every run in the data directory, newest first: id, status, kind, tier,
plan and when it started.

With --store, the runs a shared store holds (those whose SEAL is written),
each with its seal.

Exit codes: 0 listed, 1 the store answered with an error, 2 usage or the
store cannot be reached (no answer, or 502, 503 or 504 after retries).

Examples:
  agentlab runs list
  agentlab runs list --format json
  agentlab runs list --store s3://team-runs/agentlab`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			return listRuns(cmd.OutOrStdout(), dataDir(dir), storeURL, format)
		},
	}
	list.Flags().StringVar(&storeURL, "store", "", "the runs of this shared store (s3://BUCKET/PREFIX?endpoint=URL&path_style=true) instead of the data dir")
	one := func(use, short, long string, print func(w io.Writer, d, id, format string) error) *cobra.Command {
		return &cobra.Command{
			Use:   use + " [RUN]",
			Short: short,
			Long:  long,
			Args:  cobra.MaximumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := checkFormat(format, "text", "json"); err != nil {
					return err
				}
				d := dataDir(dir)
				arg := ""
				if len(args) > 0 {
					arg = args[0]
				}
				id, err := pickRun(d, arg) // the latest run when none is named
				if err != nil {
					return err
				}
				return print(cmd.OutOrStdout(), d, id, format)
			},
		}
	}
	show := one("show", "Show one run's record and node states", `Show one run's record: status, kind, tier, plan, seal, outputs, what it waits
for (with the command that decides it) and the state of every node. RUN
defaults to the latest run and may be a unique prefix of a run id.

Examples:
  agentlab runs show
  agentlab runs show 2026 --format json`, runsShow)
	events := one("events", "Print a run's event log, one line per event", `Print a run's event log, one line per event; with --format json the events
exactly as stored. RUN defaults to the latest run and may be a unique prefix of
a run id.

Examples:
  agentlab runs events
  agentlab runs events 2026 --format json`, runsEvents)
	cmd.AddCommand(list, show, events,
		newRunsEvidenceCmd(&dir, &format), newRunsToolsCmd(&dir, &format), newRunsUsingCmd(&dir, &format), newRunsExtractCmd(&dir), newRunsReviewCmd(&dir, &format))
	return cmd
}

// runsSubcommands are the names agentlab runs accepts.
var runsSubcommands = []string{"list", "show", "events", "evidence", "tools", "using", "extract", "review"}

// listRuns lists the data dir's runs, or a shared store's with storeURL.
func listRuns(w io.Writer, dataDir, storeURL, format string) error {
	if storeURL != "" {
		return runsListShared(w, storeURL, format)
	}
	return runsList(w, dataDir, format)
}

type runRow struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Kind     string `json:"kind"`
	Plan     string `json:"plan"`
	Flow     string `json:"flow"`
	Created  string `json:"created"`
	Finished string `json:"finished"`
	Seal     string `json:"seal"`
	Error    string `json:"error,omitempty"`
}

func runsList(w io.Writer, dir, format string) error {
	recs, err := runlog.List(dir)
	if err != nil {
		return exitf(exitUsage, "cannot list runs in %s: %v", dir, err)
	}
	rows := make([]runRow, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, runRow{ID: r.ID, Status: r.Status, Kind: r.Kind, Plan: r.Plan, Flow: r.Flow, Created: r.Created, Finished: r.Finished, Seal: r.Seal, Error: r.Error})
	}
	if format == "json" {
		return writeJSON(w, map[string]any{"runs": rows})
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "no runs in %s\n", dir)
		return nil
	}
	t := newTable(w)
	t.Header("run", "status", "kind", "flow", "created", "seal")
	for _, r := range rows {
		t.Append(r.ID, r.Status, r.Kind, r.Flow, r.Created, short(r.Seal))
	}
	return t.Render()
}

// nodeState is a node's last state as its events tell it.
type nodeState struct {
	Node   string `json:"node"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

func nodeStates(evs []chain.Event) []nodeState {
	m := map[string]*nodeState{}
	var order []string
	for _, e := range evs {
		if e.Node == "" || !strings.HasPrefix(e.Type, "node.") {
			continue
		}
		s, ok := m[e.Node]
		if !ok {
			s = &nodeState{Node: e.Node}
			m[e.Node] = s
			order = append(order, e.Node)
		}
		s.Status = strings.TrimPrefix(e.Type, "node.")
		var d struct {
			Error  string `json:"error"`
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(e.Data, &d)
		s.Detail = firstLine(d.Error + d.Reason)
	}
	out := make([]nodeState, 0, len(order))
	for _, id := range order {
		out = append(out, *m[id])
	}
	return out
}

func runsShow(w io.Writer, dir, id, format string) error {
	snap, err := runlog.OpenReadOnly(dir, id)
	if err != nil {
		return exitf(exitUsage, "%v", err)
	}
	nodes := nodeStates(snap.Events)
	// A sealed run's outputs are shown as the sealed run.finished event
	// records them, never from run.json, which the seal does not cover.
	if snap.Record.Seal != "" {
		if outs, err := run.SealedOutputs(snap.Events); err == nil {
			if b, err := canon.Marshal(outs); err == nil {
				snap.Record.Outputs = b
			}
		} else {
			snap.Record.Outputs = nil
		}
	}
	if format == "json" {
		b, err := json.Marshal(snap.Record)
		if err != nil {
			return err
		}
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			return err
		}
		obj["nodes"] = nodes
		obj["events"] = len(snap.Events)
		return writeJSON(w, obj)
	}
	r := snap.Record
	kv := [][2]string{
		{"run", r.ID}, {"status", r.Status}, {"kind", r.Kind}, {"flow", r.Flow}, {"plan", r.Plan},
		{"provider", r.Provider}, {"seed", fmt.Sprint(r.Seed)}, {"actor", r.Actor}, {"created", r.Created},
		{"finished", r.Finished}, {"seal", r.Seal}, {"error", r.Error}, {"events", fmt.Sprint(len(snap.Events))},
	}
	for _, p := range kv {
		if p[1] != "" {
			fmt.Fprintf(w, "%-9s %s\n", p[0]+":", p[1])
		}
	}
	if len(r.Outputs) > 0 {
		fmt.Fprintf(w, "%-9s %s\n", "outputs:", r.Outputs)
	}
	if len(snap.Problems) > 0 {
		fmt.Fprintf(w, "problems: %d (agentlab verify %s)\n", len(snap.Problems), snap.Dir)
	}
	if r.Status == runlog.StatusWaiting {
		for _, x := range r.Waiting {
			fmt.Fprintf(w, "waiting at %s; decide with:\n  %s\n", x.Node, x.Command)
			printForm(w, x.Form)
		}
	}
	if len(nodes) > 0 {
		t := newTable(w)
		t.Header("node", "status", "detail")
		for _, n := range nodes {
			t.Append(n.Node, n.Status, n.Detail)
		}
		return t.Render()
	}
	return nil
}

func runsEvents(w io.Writer, dir, id, format string) error {
	snap, err := runlog.OpenReadOnly(dir, id)
	if err != nil {
		return exitf(exitUsage, "%v", err)
	}
	if format == "json" {
		evs := snap.Events
		if evs == nil {
			evs = []chain.Event{}
		}
		return writeJSON(w, map[string]any{"run": id, "events": evs})
	}
	for _, e := range snap.Events {
		data := string(e.Data)
		if len(data) > 120 {
			data = data[:117] + "…"
		}
		node := e.Node
		if node == "" {
			node = "-"
		}
		fmt.Fprintf(w, "%4d %s %-14s %-24s %s\n", e.Seq, e.Time, e.Type, node, data)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func short(s string) string {
	if len(s) > 15 {
		return s[:15]
	}
	return s
}
