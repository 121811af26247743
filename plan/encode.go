package plan

import (
	"errors"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

// Encoding is a plan's canonical bytes and its hash, built together: a
// compile writes the bytes and prints the hash, and building the
// canonical form is the most expensive step after parsing, so it is done
// once.
type Encoding struct {
	Bytes []byte
	Hash  hashid.ID
	// flowDirAt is where FlowDirKey goes in Bytes ("edges" < "flow_dir" <
	// "format"), or -1 when the bytes came from the slow path.
	flowDirAt int
}

// Encode returns p's canonical bytes (equal to canon.Marshal(p)) and hash.
// The plan is written field by field in canonical key order, without the
// encoding/json round trip canon.Marshal takes; TestEncodeEqualsMarshal and
// FuzzEncodeEqualsMarshal hold the two to the same bytes.
func (p *Plan) Encode() (Encoding, error) {
	e := encoder{b: make([]byte, 0, 4096), flowDirAt: -1}
	err := e.plan(p, true)
	if errors.Is(err, errSlowPath) {
		b, err := canon.Marshal(p)
		if err != nil {
			return Encoding{}, err
		}
		return Encoding{Bytes: b, Hash: hashid.Sum(b), flowDirAt: -1}, nil
	}
	if err != nil {
		return Encoding{}, err
	}
	b := e.bytes()
	return Encoding{Bytes: b, Hash: hashid.Sum(b), flowDirAt: e.flowDirAt}, nil
}

// File returns the bytes of a plan file (see MarshalFile) from the
// encoding: FlowDirKey is spliced in at its place in the key order
// instead of canonicalising the whole plan again.
func (enc Encoding) File(flowDir string) ([]byte, error) {
	if flowDir == "" || flowDir == "." {
		out := make([]byte, 0, len(enc.Bytes)+1)
		return append(append(out, enc.Bytes...), '\n'), nil
	}
	if enc.flowDirAt < 0 {
		return marshalFileSlow(enc.Bytes, flowDir)
	}
	out := make([]byte, 0, len(enc.Bytes)+len(flowDir)+16)
	out = append(out, enc.Bytes[:enc.flowDirAt]...)
	out = append(out, `,"`+FlowDirKey+`":`...)
	out = canon.AppendString(out, flowDir)
	out = append(out, enc.Bytes[enc.flowDirAt:]...)
	return append(out, '\n'), nil
}

// errSlowPath sends a plan the encoder cannot write exactly (a map key
// that is not valid UTF-8) through canon.Marshal.
var errSlowPath = errors.New("plan: canonical slow path")

// encoder appends canonical JSON; every method writes its fields in
// sorted key order and leaves out what the struct tags say omitempty.
//
// A large plan is written in chunks (see spill) and joined once at the
// end, instead of growing one slice: append grows a large slice by a
// quarter at a time, which for the 18 MB plan of a 100,000-node flow
// allocated about 100 MB of short-lived copies while the plan itself was
// still live, enough to raise a compile's peak memory by as much.
type encoder struct {
	b         []byte   // the chunk being written
	done      [][]byte // full chunks, in order
	n         int      // bytes in done
	flowDirAt int
}

// encChunk is the size of a chunk; spill starts a new one once the
// current one holds more than encSpill bytes.
const (
	encChunk = 256 << 10
	encSpill = encChunk - 16<<10
)

// spill sets the current chunk aside when it is nearly full; it is called
// between the elements of lists and maps, which is where a large plan's
// bytes come from.
func (e *encoder) spill() {
	if len(e.b) < encSpill {
		return
	}
	e.done = append(e.done, e.b)
	e.n += len(e.b)
	e.b = make([]byte, 0, encChunk)
}

// off is the offset in the whole encoding of the next byte written.
func (e *encoder) off() int { return e.n + len(e.b) }

// bytes returns the whole encoding in one slice.
func (e *encoder) bytes() []byte {
	if len(e.done) == 0 {
		return e.b
	}
	out := make([]byte, 0, e.n+len(e.b))
	for _, c := range e.done {
		out = append(out, c...)
	}
	out = append(out, e.b...)
	e.done, e.b = nil, nil
	return out
}

func (e *encoder) key(first bool, k string) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.b = append(canon.AppendString(e.b, k), ':')
}

func (e *encoder) str(s string) { e.b = canon.AppendString(e.b, s) }

func (e *encoder) int(i int) { e.b = canon.AppendInt(e.b, int64(i)) }

func (e *encoder) float(f float64) error {
	b, err := canon.AppendFloat(e.b, f)
	if err != nil {
		return err
	}
	e.b = b
	return nil
}

// optStr writes `,"k":v` when v is not empty, as omitempty does; it is
// never the first key of an object.
func (e *encoder) optStr(k, v string) {
	if v != "" {
		e.key(false, k)
		e.str(v)
	}
}

func (e *encoder) value(v any) error {
	b, err := canon.AppendValue(e.b, v)
	if err != nil {
		return err
	}
	e.b = b
	return nil
}

func (e *encoder) null() { e.b = append(e.b, "null"...) }

// mapOf writes a map with string keys, each value by f.
func mapOf[V any](e *encoder, m map[string]V, f func(V) error) error {
	if m == nil {
		e.null()
		return nil
	}
	keys, ok := canon.SortedKeys(m)
	if !ok {
		return errSlowPath
	}
	e.b = append(e.b, '{')
	for i, k := range keys {
		e.key(i == 0, k)
		if err := f(m[k]); err != nil {
			return err
		}
		e.spill()
	}
	e.b = append(e.b, '}')
	return nil
}

// listOf writes a slice, each element by f.
func listOf[V any](e *encoder, l []V, f func(*V) error) error {
	if l == nil {
		e.null()
		return nil
	}
	e.b = append(e.b, '[')
	for i := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if err := f(&l[i]); err != nil {
			return err
		}
		e.spill()
	}
	e.b = append(e.b, ']')
	return nil
}

func (e *encoder) plan(p *Plan, top bool) error {
	e.b = append(e.b, '{')
	e.key(true, "agentlab")
	e.int(p.Agentlab)
	if len(p.Cards) > 0 {
		e.key(false, "cards")
		if err := mapOf(e, p.Cards, e.card); err != nil {
			return err
		}
	}
	e.optStr("description", p.Description)
	e.key(false, "edges")
	if err := listOf(e, p.Edges, e.edge); err != nil {
		return err
	}
	if top {
		e.flowDirAt = e.off()
	}
	e.key(false, "format")
	e.int(p.Format)
	e.key(false, "inputs")
	if err := mapOf(e, p.Inputs, e.input); err != nil {
		return err
	}
	e.key(false, "name")
	e.str(p.Name)
	e.key(false, "nodes")
	if err := listOf(e, p.Nodes, e.node); err != nil {
		return err
	}
	e.key(false, "preset")
	if err := e.preset(&p.Preset); err != nil {
		return err
	}
	e.key(false, "settings")
	if err := e.settings(&p.Settings); err != nil {
		return err
	}
	e.key(false, "sources")
	if err := mapOf(e, p.Sources, e.source); err != nil {
		return err
	}
	if len(p.Subflows) > 0 {
		e.key(false, "subflows")
		err := mapOf(e, p.Subflows, func(sp *Plan) error {
			if sp == nil {
				e.null()
				return nil
			}
			return e.plan(sp, false)
		})
		if err != nil {
			return err
		}
	}
	e.key(false, "tier")
	e.str(p.Tier)
	e.optStr("title", p.Title)
	if len(p.Tools) > 0 {
		e.key(false, "tools")
		err := mapOf(e, p.Tools, func(m map[string]any) error { return e.value(m) })
		if err != nil {
			return err
		}
	}
	e.optStr("version", p.Version)
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) card(c Card) error {
	e.b = append(e.b, '{')
	e.key(true, "metrics")
	if err := mapOf(e, c.Metrics, e.metric); err != nil {
		return err
	}
	e.key(false, "name")
	e.str(c.Name)
	e.key(false, "version")
	e.int(c.Version)
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) metric(m Metric) error {
	e.b = append(e.b, '{')
	first := true
	if m.Decimals != nil {
		e.key(true, "decimals")
		e.int(*m.Decimals)
		first = false
	}
	e.key(first, "expr")
	e.str(m.Expr)
	e.optStr("format", m.Format)
	e.optStr("unit", m.Unit)
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) edge(x *Edge) error {
	e.b = append(e.b, '{')
	e.key(true, "from")
	e.str(x.From)
	e.optStr("port", x.Port)
	e.key(false, "to")
	e.str(x.To)
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) input(in Input) error {
	e.b = append(e.b, '{')
	first := true
	if in.Default != nil {
		e.key(true, "default")
		if err := e.value(in.Default); err != nil {
			return err
		}
		first = false
	}
	if in.Description != "" {
		e.key(first, "description")
		e.str(in.Description)
		first = false
	}
	if len(in.Enum) > 0 {
		e.key(first, "enum")
		if err := e.value(in.Enum); err != nil {
			return err
		}
		first = false
	}
	if in.Required {
		e.key(first, "required")
		e.b = append(e.b, "true"...)
		first = false
	}
	e.key(first, "type")
	e.str(in.Type)
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) node(n *Node) error {
	e.b = append(e.b, '{')
	first := true
	if n.AssignTo != "" {
		e.key(true, "assign_to")
		e.str(n.AssignTo)
		first = false
	}
	if n.Body != nil {
		e.key(first, "body")
		if err := e.graph(n.Body); err != nil {
			return err
		}
		first = false
	}
	e.key(first, "id")
	e.str(n.ID)
	e.key(false, "on_error")
	e.str(n.OnError)
	e.key(false, "retry")
	e.b = append(e.b, '{')
	e.key(true, "backoff_s")
	if err := e.float(n.Retry.BackoffS); err != nil {
		return err
	}
	e.key(false, "max")
	e.int(n.Retry.Max)
	e.b = append(e.b, '}')
	e.key(false, "spec")
	if n.Spec == nil {
		e.null()
	} else if err := e.value(n.Spec); err != nil {
		return err
	}
	if n.TimeoutS != 0 {
		e.key(false, "timeout_s")
		if err := e.float(n.TimeoutS); err != nil {
			return err
		}
	}
	e.optStr("title", n.Title)
	e.key(false, "type")
	e.str(n.Type)
	e.optStr("when", n.When)
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) graph(g *Graph) error {
	e.b = append(e.b, '{')
	e.key(true, "edges")
	if err := listOf(e, g.Edges, e.edge); err != nil {
		return err
	}
	e.key(false, "nodes")
	if err := listOf(e, g.Nodes, e.node); err != nil {
		return err
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) preset(p *Preset) error {
	e.b = append(e.b, '{')
	e.key(true, "name")
	e.str(p.Name)
	e.key(false, "rows")
	err := listOf(e, p.Rows, func(r *PresetRow) error {
		e.b = append(e.b, '{')
		first := true
		if len(r.Config) > 0 {
			e.key(true, "config")
			if err := e.value(r.Config); err != nil {
				return err
			}
			first = false
		}
		if r.Disabled {
			e.key(first, "disabled")
			e.b = append(e.b, "true"...)
			first = false
		}
		e.key(first, "id")
		e.str(r.ID)
		e.key(false, "use")
		e.str(r.Use)
		e.b = append(e.b, '}')
		return nil
	})
	if err != nil {
		return err
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) settings(s *Settings) error {
	e.b = append(e.b, '{')
	e.key(true, "max_graph_steps")
	e.int(s.MaxGraphSteps)
	e.key(false, "parallel")
	e.int(s.Parallel)
	e.key(false, "row_cap")
	e.int(s.RowCap)
	e.key(false, "run_timeout_s")
	if err := e.float(s.RunTimeoutS); err != nil {
		return err
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *encoder) source(s Source) error {
	e.b = append(e.b, '{')
	e.key(true, "kind")
	e.str(s.Kind)
	if len(s.MaskColumns) > 0 {
		e.key(false, "mask_columns")
		if err := e.value(s.MaskColumns); err != nil {
			return err
		}
	}
	e.key(false, "path")
	e.str(s.Path)
	if s.RowCap != 0 {
		e.key(false, "row_cap")
		e.int(s.RowCap)
	}
	e.optStr("table", s.Table)
	e.b = append(e.b, '}')
	return nil
}
