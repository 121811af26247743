package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
)

func newRunsExtractCmd(dir *string) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "extract [RUN] -o FLOW.yml",
		Short: "Write a flow of what a run executed, untaken branches pruned",
		Long: `Write the flow a sealed run actually went through: the plan its events are
sealed under (read from the artifact store, its hash checked), with the
top-level nodes that never ran (skipped: an untaken branch, a when that was
false, a gate's other port) and their edges removed. What an exploratory run
found its way through becomes a flow to review, tighten (tier: published or
governed) and run formally.

The flow is written as the plan holds it: every default filled in, presets
as the plan names them, source, card and subflow paths relative to the
original flow's directory, and no comments or descriptions (the plan does
not keep them) — so write it next to the original flow, and lint it (it
lints clean where the original did). Ports of a branch left without
an edge keep their case (taking one ends that path, W-GRAPH-PORT-UNUSED).
A retrieve node's alpha from a plan compiled before alpha was reversed is
written as 1 − alpha, which gives the same mix today.
Without -o, or with -o -, the flow goes to standard output. An existing file
is kept unless --force.

Examples:
  agentlab runs extract -o flows/explored.yml
  agentlab runs extract 2026 -o - | less`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openPickedSealed(*dir, args)
			if err != nil {
				return err
			}
			b, err := extractFlow(s)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err := cmd.OutOrStdout().Write(b)
				return err
			}
			if _, err := os.Stat(out); err == nil && !force {
				return exitf(exitUsage, "%s exists; pass --force to replace it, or choose another -o", out)
			}
			if err := fsutil.WriteFileAtomic(out, b, 0o644); err != nil {
				return exitf(exitFailed, "%v", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s; check it with: agentlab lint %s\n", out, shellQuote(out))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write the flow to (- or none: standard output)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing file")
	return cmd
}

// extractFlow is the YAML of the run's plan with the top-level nodes that
// did not run removed.
func extractFlow(s *sealedRun) ([]byte, error) {
	ph, ok := render.RunPlan(s.Events)
	if !ok {
		return nil, exitf(exitFailed, "run %s: its sealed events name no plan", s.ID)
	}
	id, err := hashid.Parse(ph)
	if err != nil {
		return nil, exitf(exitFailed, "run %s: plan %q: %v", s.ID, ph, err)
	}
	b, err := s.get(id)
	if err != nil {
		return nil, exitf(exitFailed, "run %s: its plan %s is not in the artifact store: %v", s.ID, ph, err)
	}
	p, h, err := plan.Decode(b)
	if err != nil {
		return nil, exitf(exitFailed, "run %s: %v", s.ID, err)
	}
	if h.String() != ph {
		return nil, exitf(exitFailed, "run %s: the stored plan hashes to %s, not %s; the store is damaged (agentlab verify)", s.ID, h, ph)
	}
	ran := ranNodes(s.Events)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Extracted from run %s (plan %s): the nodes it ran.\n", s.ID, ph)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(flowOfPlan(p, ran)); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ranNodes are the nodes with an event other than node.skipped: they
// started, whatever their end (a node that failed under on_error:
// continue is part of what the run went through).
func ranNodes(evs []chain.Event) map[string]bool {
	ran := map[string]bool{}
	for _, e := range evs {
		if e.Node != "" && e.Type == "node.started" {
			ran[e.Node] = true
		}
	}
	return ran
}

// flowOfPlan writes a plan back as a flow document, keys in the order
// docs/language.md lists them, keeping the top-level nodes in ran.
func flowOfPlan(p *plan.Plan, ran map[string]bool) *yaml.Node {
	doc := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v any) {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return
		}
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &n)
	}
	add("agentlab", p.Agentlab)
	add("name", p.Name)
	if p.Title != "" {
		add("title", p.Title)
	}
	if p.Version != "" {
		add("version", p.Version)
	}
	add("tier", p.Tier)
	if p.Preset.Name != "" {
		add("preset", p.Preset.Name)
	}
	if len(p.Inputs) > 0 {
		add("inputs", wholeNumbers(jsonObject(p.Inputs)))
	}
	if len(p.Sources) > 0 {
		add("sources", jsonObject(p.Sources))
	}
	if p.Settings != plan.DefaultSettings {
		add("settings", wholeNumbers(jsonObject(p.Settings)))
	}
	if len(p.Tools) > 0 {
		add("tools", wholeNumbers(jsonObject(p.Tools)))
	}
	var kept []plan.Edge
	for _, e := range p.Edges {
		if ran[e.From] && ran[e.To] {
			kept = append(kept, e)
		}
	}
	add("nodes", flowNodes(pruneBranches(p.Nodes, kept), ran))
	var edges []any
	for _, e := range kept {
		from := e.From
		if e.Port != "" {
			from += "." + e.Port
		}
		edges = append(edges, from+" -> "+e.To)
	}
	if len(edges) > 0 {
		add("edges", edges)
	}
	return doc
}

// pruneBranches keeps, of each rule branch, the ports a kept edge leaves
// by. The run never took the others, so the extracted flow does not offer
// them: a case whose port is unwired is dropped, and every later case and
// the default are guarded by its condition being false, so that a formal
// run that would have taken it fails at the branch ("no case matched")
// instead of quietly taking another path. Semantic branches keep their
// labels: fewer labels would change what the model is asked.
func pruneBranches(nodes []plan.Node, edges []plan.Edge) []plan.Node {
	wired := map[[2]string]bool{}
	for _, e := range edges {
		if e.Port != "" {
			wired[[2]string{e.From, e.Port}] = true
		}
	}
	out := make([]plan.Node, len(nodes))
	for i, n := range nodes {
		out[i] = n
		if n.Type != "branch" || n.Str("mode") == "semantic" {
			continue
		}
		spec := make(map[string]any, len(n.Spec))
		for k, v := range n.Spec {
			spec[k] = v
		}
		cases, _ := spec["cases"].([]any)
		var keep []any
		var dropped []string
		guard := func(when string) string {
			if len(dropped) == 0 {
				return when
			}
			g := "!(" + strings.Join(dropped, ") && !(") + ")"
			if when == "" {
				return g
			}
			return g + " && (" + when + ")"
		}
		for _, c := range cases {
			m, _ := c.(map[string]any)
			port, _ := m["port"].(string)
			when, _ := m["when"].(string)
			if !wired[[2]string{n.ID, port}] {
				dropped = append(dropped, when)
				continue
			}
			keep = append(keep, map[string]any{"port": port, "when": guard(when)})
		}
		if d, ok := spec["default"].(string); ok {
			switch {
			case !wired[[2]string{n.ID, d}]:
				delete(spec, "default")
			case len(dropped) > 0:
				keep = append(keep, map[string]any{"port": d, "when": guard("")})
				delete(spec, "default")
			}
		}
		spec["cases"] = keep
		out[i].Spec = spec
	}
	return out
}

// flowNodes writes plan nodes as flow nodes: the common fields, then the
// spec. With ran, only the nodes in it; loop bodies are kept whole.
func flowNodes(nodes []plan.Node, ran map[string]bool) []any {
	var out []any
	for _, n := range nodes {
		if ran != nil && !ran[n.ID] {
			continue
		}
		m := yaml.Node{Kind: yaml.MappingNode}
		add := func(k string, v any) {
			var x yaml.Node
			if x.Encode(v) == nil {
				m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &x)
			}
		}
		add("id", n.ID)
		add("type", n.Type)
		if n.Title != "" {
			add("title", n.Title)
		}
		if n.AssignTo != "" {
			add("assign_to", n.AssignTo)
		}
		if n.When != "" {
			add("when", n.When)
		}
		if n.Retry.Max > 0 {
			add("retry", wholeNumbers(jsonObject(n.Retry)))
		}
		if n.OnError != "" && n.OnError != "fail" {
			add("on_error", n.OnError)
		}
		if n.TimeoutS > 0 {
			add("timeout_s", wholeNumbers(n.TimeoutS))
		}
		keys := make([]string, 0, len(n.Spec))
		for k := range n.Spec {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lang := compile.NodeSpecKeys(n.Type)
		for _, k := range keys {
			if lang(k) {
				add(k, wholeNumbers(specValue(n, k)))
			}
		}
		if n.Body != nil {
			body := map[string]any{"nodes": flowNodes(n.Body.Nodes, nil)}
			var edges []any
			for _, e := range n.Body.Edges {
				from := e.From
				if e.Port != "" {
					from += "." + e.Port
				}
				edges = append(edges, from+" -> "+e.To)
			}
			if len(edges) > 0 {
				body["edges"] = edges
			}
			add("body", body)
		}
		out = append(out, &m)
	}
	return out
}

// jsonObject is v as its JSON object, so that a plan struct is written
// with the keys of the language (omitempty fields left out).
func jsonObject(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// specValue is what the flow writes for key k of n: the plan's value,
// except a retrieve node's alpha in a plan compiled before alpha was
// reversed (no scoring mark), which is written in today's convention so
// the extracted flow ranks as the run did.
func specValue(n plan.Node, k string) any {
	if n.Type == "retrieve" && k == "alpha" {
		if _, marked := n.Spec["scoring"]; !marked {
			return math.Round((1-n.Float("alpha"))*1e9) / 1e9 // 0.3, not 0.30000000000000004
		}
	}
	return n.Spec[k]
}
