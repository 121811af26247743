package engine

import (
	"encoding/json"
	"fmt"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
)

// RecordedEvent is one event of an earlier attempt of the run, as read
// back from events.jsonl.
type RecordedEvent struct {
	Type string
	Node string
	Data json.RawMessage
}

// Prior is what an earlier attempt of a run finished: resume restores
// these nodes from their recorded payloads instead of executing them
// again. Keys are full node ids (loop and subflow prefixes included), so
// the finished iterations of an unfinished loop are restored too.
type Prior struct {
	nodes map[string]priorNode
	// human holds the waiting and decision events of human nodes (prior_human.go).
	human map[string]*priorHuman
	// limits holds the agent.limits each agent node recorded (agent_limits.go).
	limits map[string]json.RawMessage
}

type priorNode struct {
	Status  string // StateFinished | StateSkipped
	payload payload
	// metrics is the MetricSet a metrics node stored: the report nodes
	// after it cite from it (a dual card's pinned values live only there).
	metrics *evidence.MetricSet
}

// NewPrior reads the node events of an earlier attempt; get loads an
// artifact when a node.finished event references one.
func NewPrior(events []RecordedEvent, get func(hashid.ID) ([]byte, error)) (*Prior, error) {
	p := &Prior{nodes: map[string]priorNode{}}
	for _, ev := range events {
		switch ev.Type {
		case EvNodeFinished:
			pl, err := decodePayload(ev.Data, get)
			if err != nil {
				return nil, fmt.Errorf("event node.finished of %q: %v", ev.Node, err)
			}
			ms, err := decodeMetricSet(ev.Data, get)
			if err != nil {
				return nil, fmt.Errorf("event node.finished of %q: %v", ev.Node, err)
			}
			p.nodes[ev.Node] = priorNode{Status: StateFinished, payload: pl, metrics: ms}
		case EvNodeSkipped:
			if _, ok := p.nodes[ev.Node]; !ok {
				p.nodes[ev.Node] = priorNode{Status: StateSkipped}
			}
		case EvAgentLimits:
			if p.limits == nil {
				p.limits = map[string]json.RawMessage{}
			}
			if _, seen := p.limits[ev.Node]; !seen {
				p.limits[ev.Node] = ev.Data
			}
		case EvHumanWaiting, EvHumanDecided, EvHumanEscalated:
			if err := p.addHuman(ev); err != nil {
				return nil, fmt.Errorf("event %s of %q: %v", ev.Type, ev.Node, err)
			}
		}
	}
	return p, nil
}

// Finished lists how many nodes an earlier attempt finished.
func (p *Prior) Finished() int {
	if p == nil {
		return 0
	}
	n := 0
	for _, v := range p.nodes {
		if v.Status == StateFinished {
			n++
		}
	}
	return n
}

func (p *Prior) lookup(id string) (priorNode, bool) {
	if p == nil {
		return priorNode{}, false
	}
	v, ok := p.nodes[id]
	return v, ok
}

func decodePayload(data json.RawMessage, get func(hashid.ID) ([]byte, error)) (payload, error) {
	var ref struct {
		Artifact string `json:"output_artifact"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		return payload{}, err
	}
	if ref.Artifact != "" {
		id, err := hashid.Parse(ref.Artifact)
		if err != nil {
			return payload{}, err
		}
		if get == nil {
			return payload{}, fmt.Errorf("artifact %s cannot be read", ref.Artifact)
		}
		b, err := get(id)
		if err != nil {
			return payload{}, fmt.Errorf("artifact %s: %v", ref.Artifact, err)
		}
		data = b
	}
	if pl, ok := readPayload(data); ok {
		return pl, nil
	}
	var pl payload
	if err := json.Unmarshal(data, &pl); err != nil {
		return payload{}, err
	}
	return pl, nil
}

// decodeMetricSet loads the metrics_artifact a node.finished event
// references, or returns nil when it references none.
func decodeMetricSet(data json.RawMessage, get func(hashid.ID) ([]byte, error)) (*evidence.MetricSet, error) {
	var ref struct {
		Artifact string `json:"metrics_artifact"`
	}
	if err := json.Unmarshal(data, &ref); err != nil || ref.Artifact == "" {
		return nil, err
	}
	id, err := hashid.Parse(ref.Artifact)
	if err != nil {
		return nil, err
	}
	if get == nil {
		return nil, fmt.Errorf("artifact %s cannot be read", ref.Artifact)
	}
	b, err := get(id)
	if err != nil {
		return nil, fmt.Errorf("artifact %s: %v", ref.Artifact, err)
	}
	var set evidence.MetricSet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("metrics artifact %s: %v", ref.Artifact, err)
	}
	return &set, nil
}
