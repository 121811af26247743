// Package render turns the sealed evidence of a run into its report: the
// narrative of every report node with its citation markers filled from
// metric sets, snapshots, inputs and knowledge hits, the metric list and
// the snapshots behind them.
//
// It is a leaf package shared by the run engine, which writes report.html
// and bundle.html at the end of a run, and by the verifier, which renders
// the same evidence again and compares it byte for byte with the report a
// bundle shows. Everything it reads comes from sealed events and the
// artifacts they reference; nothing comes from run.json, the clock or the
// machine, so the same evidence always renders to the same bytes.
//
// Where it fits: docs/architecture.md#evidence-and-issuance.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
)

// Event types and data keys the renderer reads (docs/formats.md, "Report").
const (
	TypeEvidenceAdded = "evidence.added"
	KeyMetrics        = "metrics_artifact"
	KeyReport         = "report_artifact"
	KeyHits           = "hits_artifact"
	KeyContract       = "contract" // an output node's issuance verdict
)

// Meta describes the run the report belongs to, as the sealed events say.
type Meta struct {
	Run    string `json:"run,omitempty"` // "" when Load was not told the run id
	Seal   string `json:"seal,omitempty"`
	Plan   string `json:"plan"`
	Flow   string `json:"flow,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Tier   string `json:"tier,omitempty"`
	Status string `json:"status,omitempty"`
	Head   string `json:"head,omitempty"` // hash of run.finished; "" when the run is not sealed
	Seq    int64  `json:"seq,omitempty"`
	// TierReasons says why the issuance tier run.finished records is not
	// formal: the reasons of the contracted outputs whose verdict is not
	// formal (node.finished contract.issuance.reasons), in event order,
	// each prefixed "output <node>: " when several outputs carry a
	// contract, duplicates dropped. assets/verify.js derives it the same way.
	TierReasons []string `json:"tier_reasons,omitempty"`
}

// Snapshot is a query snapshot of the ledger with the artifact holding it.
type Snapshot struct {
	ID       string
	Artifact string
	Raw      []byte
	Snap     *evidence.Snapshot
}

// Hit is a knowledge hit of the ledger.
type Hit struct {
	ID       string
	Artifact string
	Raw      []byte
	Hit      evidence.KnowledgeHit
}

// MetricSet is the metric set a metrics node stored.
type MetricSet struct {
	Node     string
	Artifact string
	Raw      []byte
	Set      evidence.MetricSet
}

// Report is one report node's artifact, resolved into parts.
type Report struct {
	Node     string
	Artifact string
	Raw      []byte
	Art      evidence.ReportArtifact
	Parts    []Part
}

// Doc is everything a report shows, derived from sealed evidence only.
type Doc struct {
	Meta       Meta
	Inputs     map[string]any
	Ledger     []evidence.Entry
	Snapshots  []*Snapshot
	Hits       []*Hit
	MetricSets []*MetricSet
	Reports    []*Report
	// Outputs are the run's outputs as run.finished records them, and
	// Texts the text every model node answered (runtext.go): a run
	// without a report node still has a report that shows what it
	// produced.
	Outputs map[string]any
	Texts   []NodeText
	// Problems lists what could not be resolved while rendering (a marker
	// naming a missing metric, a cell out of range…), one sentence each.
	// They are shown marked in the report.
	Problems []string
}

// Load reads the evidence of a run from its events and the artifacts
// get returns. It renders the report of the sealed prefix (up to the first
// run.finished); events after the seal are ignored. Without the run id the
// seal hash cannot be computed; prefer LoadRun when the id is known.
func Load(events []chain.Event, get func(id hashid.ID) ([]byte, error)) (*Doc, error) {
	return LoadRun("", events, get)
}

// LoadRun is Load for run runID; the report then names the run and its
// seal hash.
func LoadRun(runID string, events []chain.Event, get func(id hashid.ID) ([]byte, error)) (*Doc, error) {
	seal := ""
	if end := chain.SealedPrefix(events); runID != "" && end >= 0 {
		if st, ok := RunPlan(events[:end+1]); ok {
			if s, err := chain.ComputeSeal(runID, st, events); err == nil {
				if h, err := s.Hash(); err == nil {
					seal = h.String()
				}
			}
		}
	}
	return LoadSealed(runID, seal, events, get)
}

// TypeRunResumed marks where a resumed attempt starts; its plan (when it
// names one) is the plan the run continues, and is sealed, under.
const TypeRunResumed = "run.resumed"

// RunPlan is the plan a run is sealed under: the one run.started names,
// replaced by each later run.resumed that names a plan (a run resumed with
// --plan continues under the new plan); LoadSealed sets Meta.Plan by the
// same rule. It reads the events it is given, so pass the sealed prefix.
func RunPlan(events []chain.Event) (string, bool) {
	plan := ""
	for _, e := range events {
		if e.Type != chain.TypeRunStarted && e.Type != TypeRunResumed {
			continue
		}
		var d struct {
			Plan string `json:"plan"`
		}
		if json.Unmarshal(e.Data, &d) != nil {
			d.Plan = ""
		}
		if e.Type == chain.TypeRunStarted {
			plan = d.Plan
		} else if plan != "" && d.Plan != "" {
			plan = d.Plan
		}
	}
	return plan, plan != ""
}

// LoadSealed is LoadRun for a caller that has already verified the chain
// and computed its seal hash (the verifier): it does not verify the chain
// again. seal must be what chain.ComputeSeal gives for the events under
// the plan RunPlan names, or "" when they do not seal.
func LoadSealed(runID, seal string, events []chain.Event, get func(id hashid.ID) ([]byte, error)) (*Doc, error) {
	d := &Doc{Inputs: map[string]any{}}
	d.Meta.Run = runID
	if end := chain.SealedPrefix(events); end >= 0 {
		events = events[:end+1]
	}
	fetch := func(what, id string) ([]byte, error) {
		h, err := hashid.Parse(id)
		if err != nil {
			return nil, fmt.Errorf("%s: artifact id %q: %w", what, id, err)
		}
		b, err := get(h)
		if err != nil {
			return nil, fmt.Errorf("%s: artifact %s: %w", what, h.Short(), err)
		}
		return b, nil
	}
	var verdicts contractVerdicts
	for _, e := range events {
		switch e.Type {
		case chain.TypeRunStarted, TypeRunResumed, TypeEvidenceAdded, chain.TypeNodeFinished, chain.TypeRunFinished:
		default:
			continue // nothing the report reads; skip decoding
		}
		var data map[string]any
		if len(e.Data) > 0 {
			dec := json.NewDecoder(bytes.NewReader(e.Data))
			if err := dec.Decode(&data); err != nil {
				data = nil // not an object: nothing the report reads
			}
		}
		str := func(k string) string { s, _ := data[k].(string); return s }
		switch e.Type {
		case chain.TypeRunStarted:
			d.Meta.Plan, d.Meta.Flow, d.Meta.Kind, d.Meta.Tier = str("plan"), str("flow"), str("kind"), str("tier")
			if in, ok := data["inputs"].(map[string]any); ok {
				d.Inputs = in
			} else if ih := str("inputs_hash"); ih != "" {
				if b, err := fetch("inputs", ih); err == nil {
					var in map[string]any
					if json.Unmarshal(b, &in) == nil && in != nil && hashid.Sum(b).String() == ih {
						d.Inputs = in
					}
				}
			}
		case TypeRunResumed:
			if p := str("plan"); p != "" && d.Meta.Plan != "" {
				d.Meta.Plan = p // resumed under this plan (RunPlan)
			}
		case TypeEvidenceAdded:
			ent := evidence.Entry{ID: str("id"), Kind: str("kind"), Artifact: str("artifact")}
			d.Ledger = append(d.Ledger, ent)
			b, err := fetch("evidence "+ent.ID, ent.Artifact)
			if err != nil {
				return nil, err
			}
			switch ent.Kind {
			case evidence.KindQuery:
				s, err := evidence.DecodeSnapshot(b)
				if err != nil {
					return nil, fmt.Errorf("evidence %s: %w", ent.ID, err)
				}
				if s.ID != ent.ID {
					return nil, fmt.Errorf("evidence %s: the artifact holds snapshot %s", ent.ID, s.ID)
				}
				d.Snapshots = append(d.Snapshots, &Snapshot{ID: ent.ID, Artifact: ent.Artifact, Raw: b, Snap: s})
			case evidence.KindKnowledge:
				h, err := decodeHit(ent.ID, b)
				if err != nil {
					return nil, fmt.Errorf("evidence %s: %w", ent.ID, err)
				}
				d.Hits = append(d.Hits, &Hit{ID: ent.ID, Artifact: ent.Artifact, Raw: b, Hit: h})
			default:
				return nil, fmt.Errorf("evidence %s: unknown kind %q", ent.ID, ent.Kind)
			}
		case chain.TypeNodeFinished:
			verdicts.add(e.Node, data[KeyContract])
			d.addText(e.Node, data) // runtext.go
			if id := str(KeyMetrics); id != "" {
				b, err := fetch("metrics of node "+e.Node, id)
				if err != nil {
					return nil, err
				}
				var ms evidence.MetricSet
				if err := strictJSON(b, &ms); err != nil {
					return nil, fmt.Errorf("metrics of node %s: %w", e.Node, err)
				}
				d.MetricSets = append(d.MetricSets, &MetricSet{Node: e.Node, Artifact: id, Raw: b, Set: ms})
			}
			if id := str(KeyReport); id != "" {
				b, err := fetch("report of node "+e.Node, id)
				if err != nil {
					return nil, err
				}
				var ra evidence.ReportArtifact
				if err := strictJSON(b, &ra); err != nil {
					return nil, fmt.Errorf("report of node %s: %w", e.Node, err)
				}
				d.Reports = append(d.Reports, &Report{Node: e.Node, Artifact: id, Raw: b, Art: ra})
			}
		case chain.TypeRunFinished:
			d.Meta.Status = str("status")
			d.Outputs, _ = data["outputs"].(map[string]any)
			if t := str("tier"); t != "" {
				d.Meta.Tier = t
				if t != "formal" {
					d.Meta.TierReasons = verdicts.reasons()
				}
			}
			if k := str("kind"); k != "" {
				d.Meta.Kind = k
			}
			d.Meta.Head, d.Meta.Seq = e.Hash, e.Seq
		}
	}
	if d.Meta.Head != "" && d.Meta.Plan != "" {
		d.Meta.Seal = seal
	}
	for _, r := range d.Reports {
		r.Parts = d.resolve(r)
	}
	return d, nil
}

func decodeHit(id string, b []byte) (evidence.KnowledgeHit, error) {
	var h evidence.KnowledgeHit
	if len(b) > 0 && b[0] == '[' {
		var hs []evidence.KnowledgeHit
		if err := json.Unmarshal(b, &hs); err != nil {
			return h, err
		}
		for _, x := range hs {
			if x.ID == id {
				return x, nil
			}
		}
		return h, fmt.Errorf("the hit list has no hit %s", id)
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, err
	}
	if h.ID != id {
		return h, fmt.Errorf("the artifact holds hit %s", h.ID)
	}
	return h, nil
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Snapshot returns the snapshot numbered id, or nil.
func (d *Doc) Snapshot(id string) *Snapshot {
	for _, s := range d.Snapshots {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Hit returns the knowledge hit numbered id, or nil.
func (d *Doc) Hit(id string) *Hit {
	for _, h := range d.Hits {
		if h.ID == id {
			return h
		}
	}
	return nil
}

// Metric finds a metric by name: the last metric set that defines it wins,
// as a later metrics node's output shadows an earlier one in scope.
func (d *Doc) Metric(name string) (*evidence.MetricValue, string) {
	for i := len(d.MetricSets) - 1; i >= 0; i-- {
		ms := d.MetricSets[i]
		for j := range ms.Set.Metrics {
			if ms.Set.Metrics[j].Name == name {
				return &ms.Set.Metrics[j], ms.Node
			}
		}
	}
	return nil, ""
}

// inputNames returns the input names sorted.
func (d *Doc) inputNames() []string {
	out := make([]string, 0, len(d.Inputs))
	for k := range d.Inputs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Data is the JSON the report embeds for its side panel and for the
// browser verifier: the meta data, the inputs, and every evidence artifact
// exactly as stored (canonical JSON), so that the verifier can hash each
// one against its id.
func (d *Doc) Data() ([]byte, error) {
	type art struct {
		ID       string          `json:"id,omitempty"`
		Node     string          `json:"node,omitempty"`
		Artifact string          `json:"artifact"`
		Data     json.RawMessage `json:"data"`
	}
	out := struct {
		Meta       Meta             `json:"meta"`
		Inputs     map[string]any   `json:"inputs"`
		Ledger     []evidence.Entry `json:"ledger"`
		Snapshots  []art            `json:"snapshots"`
		Hits       []art            `json:"hits"`
		MetricSets []art            `json:"metricsets"`
		Reports    []art            `json:"reports"`
		Outputs    map[string]any   `json:"outputs"`
		Texts      []NodeText       `json:"texts"`
	}{Meta: d.Meta, Inputs: d.Inputs, Ledger: d.Ledger, Snapshots: []art{}, Hits: []art{}, MetricSets: []art{}, Reports: []art{},
		Outputs: d.Outputs, Texts: d.Texts}
	if out.Outputs == nil {
		out.Outputs = map[string]any{}
	}
	if out.Texts == nil {
		out.Texts = []NodeText{}
	}
	if out.Ledger == nil {
		out.Ledger = []evidence.Entry{}
	}
	raw := func(b []byte) json.RawMessage {
		if json.Valid(b) {
			return b
		}
		return json.RawMessage("null")
	}
	for _, s := range d.Snapshots {
		out.Snapshots = append(out.Snapshots, art{ID: s.ID, Artifact: s.Artifact, Data: raw(s.Raw)})
	}
	for _, h := range d.Hits {
		out.Hits = append(out.Hits, art{ID: h.ID, Artifact: h.Artifact, Data: raw(h.Raw)})
	}
	for _, m := range d.MetricSets {
		out.MetricSets = append(out.MetricSets, art{Node: m.Node, Artifact: m.Artifact, Data: raw(m.Raw)})
	}
	for _, r := range d.Reports {
		out.Reports = append(out.Reports, art{Node: r.Node, Artifact: r.Artifact, Data: raw(r.Raw)})
	}
	// encoding/json escapes <, > and & as \u003c…, so the block can sit in a
	// <script> element: "</script>" in the data cannot end it.
	return json.Marshal(out)
}
