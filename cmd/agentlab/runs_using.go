package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
)

// cardUse is one run that computed metrics from a card version.
type cardUse struct {
	Run     string   `json:"run"`
	Status  string   `json:"status"`
	Kind    string   `json:"kind"`
	Created string   `json:"created"`
	Flow    string   `json:"flow"`
	Card    string   `json:"card"`    // name@version
	Nodes   []string `json:"nodes"`   // the metrics nodes that used it
	Metrics []string `json:"metrics"` // the metrics they computed from it
	Seal    string   `json:"seal"`
	// Rerun is the command that computes the run again from its flow and
	// inputs (against the card version the flow now pins).
	Rerun string `json:"rerun"`
}

func newRunsUsingCmd(dir, format *string) *cobra.Command {
	return &cobra.Command{
		Use:   "using CARD@VERSION",
		Short: "The runs that computed metrics from a metric card version",
		Long: `List the sealed runs of the data directory whose metrics nodes computed a
metric from card CARD at VERSION, so that they can be recomputed when that
version turns out wrong: each with its status, the nodes and metrics that
used the card, and the command that runs its flow again with the same
inputs. CARD without @VERSION matches every version. The card of each
metric is read from the metric set artifacts the sealed events name; runs
that are not sealed are skipped.

--format json prints {"card":…,"runs":[{"run","status","kind","created",
"flow","card","nodes","metrics","seal","rerun"}…]}. Exits 0 whatever it
finds, 2 when CARD@VERSION is malformed.

Examples:
  agentlab runs using monthly-revenue@3
  agentlab runs using monthly-revenue --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(*format, "text", "json"); err != nil {
				return err
			}
			card := args[0]
			name, ver, hasVer := strings.Cut(card, "@")
			if name == "" || (hasVer && (ver == "" || strings.Trim(ver, "0123456789") != "")) {
				return exitf(exitUsage, "%q is not a card reference: write CARD@VERSION with a whole version, as in monthly-revenue@3 (or CARD alone for every version)", card)
			}
			d := dataDir(*dir)
			rows, err := runsUsingCard(d, name, ver)
			if err != nil {
				return err
			}
			return writeCardUse(cmd.OutOrStdout(), card, rows, *format)
		},
	}
}

// runsUsingCard scans every sealed run of dataDir, newest first.
func runsUsingCard(dataDir, name, ver string) ([]cardUse, error) {
	recs, err := runlog.List(dataDir)
	if err != nil {
		return nil, exitf(exitUsage, "cannot list runs in %s: %v", dataDir, err)
	}
	var out []cardUse
	for _, r := range recs {
		s, err := openSealedQuiet(dataDir, r.ID)
		if err != nil {
			continue // not sealed: it computed nothing anyone relies on
		}
		byCard := map[string]*cardUse{}
		var cards []string
		var inputs map[string]any
		for _, e := range s.Events {
			var d struct {
				Artifact string         `json:"metrics_artifact"`
				Inputs   map[string]any `json:"inputs"`
			}
			if json.Unmarshal(e.Data, &d) != nil {
				continue
			}
			if e.Type == "run.started" {
				inputs = d.Inputs
			}
			if e.Type != "node.finished" || d.Artifact == "" {
				continue
			}
			id, err := hashid.Parse(d.Artifact)
			if err != nil {
				continue
			}
			b, err := s.get(id)
			if err != nil {
				continue
			}
			var set evidence.MetricSet
			if json.Unmarshal(b, &set) != nil {
				continue
			}
			for _, m := range set.Metrics {
				cn, cv, _ := strings.Cut(m.Card, "@")
				if cn != name || (ver != "" && cv != ver) {
					continue
				}
				u := byCard[m.Card]
				if u == nil {
					u = &cardUse{Run: r.ID, Status: r.Status, Kind: r.Kind, Created: r.Created, Flow: r.Flow, Card: m.Card, Seal: r.Seal}
					byCard[m.Card] = u
					cards = append(cards, m.Card)
				}
				if len(u.Nodes) == 0 || u.Nodes[len(u.Nodes)-1] != e.Node {
					u.Nodes = append(u.Nodes, e.Node)
				}
				u.Metrics = append(u.Metrics, m.Name)
			}
		}
		for _, c := range cards {
			u := byCard[c]
			u.Rerun = rerunCommand(u.Flow, inputs)
			out = append(out, *u)
		}
	}
	return out, nil
}

// openSealedQuiet is openSealed for a scan: no warnings, no exit codes.
func openSealedQuiet(dataDir, id string) (*sealedRun, error) {
	snap, err := runlog.OpenReadOnly(dataDir, id)
	if err != nil {
		return nil, err
	}
	return sealedOf(dataDir, id, snap)
}

// rerunCommand is `agentlab run FLOW --input k=v…` with the inputs the
// run started with, sorted by name and quoted for a POSIX shell.
func rerunCommand(flow string, inputs map[string]any) string {
	if flow == "" {
		flow = "FLOW"
	}
	parts := []string{"agentlab", "run", shellQuote(flow)}
	keys := make([]string, 0, len(inputs))
	for k := range inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := inputs[k].(string)
		if !ok {
			b, _ := json.Marshal(inputs[k])
			v = string(b)
		}
		parts = append(parts, "--input", shellQuote(k+"="+v))
	}
	return strings.Join(parts, " ")
}

func writeCardUse(w io.Writer, card string, rows []cardUse, format string) error {
	if format == "json" {
		if rows == nil {
			rows = []cardUse{}
		}
		return writeJSON(w, map[string]any{"card": card, "runs": rows})
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "no sealed run used card %s\n", card)
		return nil
	}
	t := newTable(w)
	t.Header("run", "status", "card", "nodes", "metrics", "created")
	for _, r := range rows {
		t.Append(r.Run, r.Status, r.Card, strings.Join(r.Nodes, ","), strings.Join(r.Metrics, ","), r.Created)
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "recompute with:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %s\n", r.Rerun)
	}
	return nil
}
