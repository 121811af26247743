package compile

import (
	"strings"

	"github.com/agentlab/agentlab/diag"
)

// parseEdge reads one entry of `edges:`: "a -> b", "a.port -> b", a chain
// "a -> b -> c" (one edge per arrow), or {from, to, port}. It appends the
// edges to dst and returns it.
func (f *flow) parseEdge(dst []edgeInfo, v *V) []edgeInfo {
	switch {
	case v.Kind == vMap:
		m := f.dec.object(v, edgeSchema, "edge")
		if m == nil {
			return dst
		}
		from, _ := m["from"].(string)
		to, _ := m["to"].(string)
		port, _ := m["port"].(string)
		if from == "" || to == "" {
			return dst
		}
		return append(dst, edgeInfo{from: from, to: to, port: port, v: v})
	case v.Kind == vScalar && !v.IsNull():
		return f.parseEdgeString(dst, v)
	}
	f.dec.errf(v, "E-SCHEMA-EDGE", "write an edge as \"a -> b\", \"a.port -> b\" or {from: a, to: b, port: p}",
		"an edge must be a string or a mapping, found %s", v.kindName())
	return dst
}

var edgeSchema = newSchema("edge",
	fStr("from").required().match(idRe, "a node id"),
	fStr("to").required().match(idRe, "a node id"),
	fStr("port").match(identRe, "a port name of letters, digits and _"),
)

// endpoint is one `id` or `id.port` between arrows, with its byte offset.
type endpoint struct {
	id, port       string
	idOff, portOff int
}

func (f *flow) parseEdgeString(dst []edgeInfo, v *V) []edgeInfo {
	s := v.Str
	var buf [4]endpoint // a chain of up to four nodes without allocating
	eps := buf[:0]
	off := 0
	for rest, more := s, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, "->")
		lead := len(part) - len(strings.TrimLeft(part, " \t"))
		t := strings.TrimSpace(part)
		ep := endpoint{idOff: off + lead}
		id, port, hasPort := strings.Cut(t, ".")
		ep.id = id
		if hasPort {
			ep.port = port
			ep.portOff = ep.idOff + len(id) + 1
		}
		bad := !isID(id) || (hasPort && !isIdent(port))
		if bad {
			f.l.Errorf(f.src.file, f.src.posIn(v, ep.idOff), "E-SCHEMA-EDGE",
				"write an edge as \"a -> b\" or \"a.port -> b\", where a and b are node ids",
				"cannot read edge %q: %q is not a node id or id.port", s, t)
			return dst
		}
		eps = append(eps, ep)
		off += len(part) + 2
	}
	if len(eps) < 2 {
		f.l.Errorf(f.src.file, v.Pos(), "E-SCHEMA-EDGE", "write an edge as \"a -> b\"",
			"cannot read edge %q: no arrow \"->\"", s)
		return dst
	}
	if last := eps[len(eps)-1]; last.port != "" {
		f.l.Errorf(f.src.file, f.src.posIn(v, last.portOff), "E-SCHEMA-EDGE",
			"put the port on the node the edge leaves: \"a.port -> b\"",
			"edge %q ends in a port; ports name the outputs of the node an edge leaves", s)
		return dst
	}
	for i := 0; i+1 < len(eps); i++ {
		a, b := eps[i], eps[i+1]
		dst = append(dst, edgeInfo{from: a.id, port: a.port, to: b.id, v: v,
			fromOff: int32(a.idOff), portOff: int32(a.portOff), toOff: int32(b.idOff), str: true})
	}
	return dst
}

// fromPos, portPos and toPos locate the parts of an edge for messages.
func (f *flow) fromPos(e edgeInfo) diag.Pos { return f.partPos(e, "from", e.fromOff) }
func (f *flow) portPos(e edgeInfo) diag.Pos { return f.partPos(e, "port", e.portOff) }
func (f *flow) toPos(e edgeInfo) diag.Pos   { return f.partPos(e, "to", e.toOff) }

func (f *flow) partPos(e edgeInfo, key string, off int32) diag.Pos {
	if e.v == nil {
		return diag.Pos{Line: 1, Col: 1}
	}
	if !e.str {
		return e.v.Get(key).Pos()
	}
	return f.src.posIn(e.v, int(off))
}
