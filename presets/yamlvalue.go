package presets

import (
	"fmt"
	"math"
	"strconv"

	"github.com/agentlab/agentlab/diag"
	"gopkg.in/yaml.v3"
)

// Limits on what a preset file may contain; they keep a hostile file
// (deep nesting, alias bombs) from exhausting memory.
const (
	maxDepth = 64
	maxNodes = 100000
)

func posOf(n *yaml.Node) diag.Pos {
	if n == nil {
		return diag.Pos{}
	}
	return diag.Pos{Line: n.Line, Col: n.Column}
}

// decoder turns yaml.v3 nodes into plain values (string, bool, float64,
// nil, []any, map[string]any), reporting problems with positions. All
// numbers become float64 so that values compare and hash the same way
// whether they came from YAML or from plan JSON.
type decoder struct {
	file  string
	ds    *diag.List
	nodes int
}

func (d *decoder) value(n *yaml.Node, depth int) (any, bool) {
	d.nodes++
	if d.nodes > maxNodes || depth > maxDepth {
		if d.nodes == maxNodes+1 || depth == maxDepth+1 {
			d.ds.Errorf(d.file, posOf(n), CodeSchema, "simplify the value; presets hold small configs",
				"value is nested too deeply or is too large")
		}
		return nil, false
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, false
		}
		return d.value(n.Alias, depth+1)
	case yaml.ScalarNode:
		return d.scalar(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		ok := true
		for _, c := range n.Content {
			v, cok := d.value(c, depth+1)
			ok = ok && cok
			out = append(out, v)
		}
		return out, ok
	case yaml.MappingNode:
		out := map[string]any{}
		ok := true
		d.eachPair(n, func(k, v *yaml.Node) {
			val, vok := d.value(v, depth+1)
			ok = ok && vok
			out[k.Value] = val
		})
		return out, ok
	}
	d.ds.Errorf(d.file, posOf(n), CodeSchema, "write a plain YAML value", "unsupported YAML node")
	return nil, false
}

// eachPair calls f for every key/value pair of a mapping, reporting
// non-string keys and duplicate keys (yaml.v3 nodes keep both).
func (d *decoder) eachPair(n *yaml.Node, f func(k, v *yaml.Node)) {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "") {
			d.ds.Errorf(d.file, posOf(k), CodeSchema, "use a plain string as the key", "mapping keys must be strings")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.ds.Errorf(d.file, posOf(k), CodeDuplicateKey, "remove one of the two",
				"key %q appears twice (first at line %d)", k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		f(k, v)
	}
}

func (d *decoder) scalar(n *yaml.Node) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			d.ds.Errorf(d.file, posOf(n), CodeSchema, "write true or false", "bad boolean %q", n.Value)
			return nil, false
		}
		return b, true
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			// yaml.v3 reads 0x/0o forms as ints; fall back to strconv.
			i, ierr := strconv.ParseInt(n.Value, 0, 64)
			if ierr != nil {
				d.ds.Errorf(d.file, posOf(n), CodeSchema, "write a plain decimal number", "bad number %q", n.Value)
				return nil, false
			}
			f = float64(i)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.ds.Errorf(d.file, posOf(n), CodeSchema, "write a finite number", "number %q is not finite", n.Value)
			return nil, false
		}
		return f, true
	case "!!str":
		return n.Value, true
	}
	d.ds.Errorf(d.file, posOf(n), CodeSchema, "remove the tag or quote the value",
		"unsupported YAML tag %s", n.Tag)
	return nil, false
}

// str reads a node that must be a string scalar.
func (d *decoder) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.ds.Errorf(d.file, posOf(n), CodeSchema, fmt.Sprintf("write %s as a string", what),
			"%s must be a string", what)
		return "", false
	}
	return n.Value, true
}

// configPos returns a posFunc that maps config keys of a mapping node to the
// positions of their keys, falling back to the node itself.
func configPos(n *yaml.Node, fallback diag.Pos) posFunc {
	return func(key string) diag.Pos {
		if n == nil {
			return fallback
		}
		if key != "" && n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					return posOf(n.Content[i])
				}
			}
		}
		return posOf(n)
	}
}
