package mcp

import (
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/agentlab/agentlab/diag"
)

// positions maps every key of a TOML document to where it was written, so
// that a check made on the decoded values (a missing command, a bad
// approval mode) can point at the exact line and column. Paths are the
// decoded key path with array-of-tables elements numbered from 0:
// "mcp.servers.1.env.TOKEN". Keys containing dots are rare in this table
// and simply share a path with their dotted spelling, which only affects
// which of two equal paths a message points at.
type positions struct {
	keys   map[string]diag.Pos // the key (or table header) itself
	values map[string]diag.Pos // the start of the value
}

func (p *positions) key(path ...string) (diag.Pos, bool) {
	pos, ok := p.keys[strings.Join(path, ".")]
	return pos, ok
}

func (p *positions) value(path ...string) (diag.Pos, bool) {
	pos, ok := p.values[strings.Join(path, ".")]
	return pos, ok
}

// indexPositions walks the document with go-toml's parser. It is called
// only on documents that have already decoded without error, so parse
// errors cannot occur; should one occur anyway the index is simply
// incomplete and messages fall back to the nearest known position.
func indexPositions(data []byte) *positions {
	idx := &positions{keys: map[string]diag.Pos{}, values: map[string]diag.Pos{}}
	var p unstable.Parser
	p.Reset(data)
	at := func(r unstable.Range) diag.Pos {
		if int(r.Offset)+int(r.Length) > len(data) {
			return diag.Pos{Line: 1, Col: 1}
		}
		s := p.Shape(r)
		return diag.Pos{Line: s.Start.Line, Col: s.Start.Column}
	}
	// header points at the opening bracket of a table header rather than
	// its first key: that is where a reader looks for "[[mcp.servers]]".
	header := func(r unstable.Range) diag.Pos {
		i := int(r.Offset)
		for i > 0 && i <= len(data) && strings.IndexByte(" \t[", data[i-1]) >= 0 {
			i--
		}
		for i < int(r.Offset) && data[i] != '[' {
			i++
		}
		return at(unstable.Range{Offset: uint32(i)})
	}
	arrays := map[string]int{} // path of an array of tables -> elements seen
	var table []string         // the current table's resolved path
	// resolve turns written key parts into a path, numbering the latest
	// element of every array of tables it passes through.
	resolve := func(base []string, parts []string) []string {
		out := append([]string(nil), base...)
		for _, k := range parts {
			out = append(out, k)
			if n, ok := arrays[strings.Join(out, ".")]; ok && n > 0 {
				out = append(out, strconv.Itoa(n-1))
			}
		}
		return out
	}
	keyParts := func(n *unstable.Node) ([]string, unstable.Range) {
		var parts []string
		var first unstable.Range
		it := n.Key()
		for it.Next() {
			k := it.Node()
			if len(parts) == 0 {
				first = k.Raw
			}
			parts = append(parts, string(k.Data))
		}
		return parts, first
	}
	var value func(path []string, v *unstable.Node)
	value = func(path []string, v *unstable.Node) {
		if v.Raw.Length > 0 { // arrays carry no range: their key stands for them
			idx.values[strings.Join(path, ".")] = at(v.Raw)
		}
		switch v.Kind {
		case unstable.Array:
			i := 0
			it := v.Children()
			for it.Next() {
				if it.Node().Kind == unstable.Comment {
					continue
				}
				value(append(append([]string(nil), path...), strconv.Itoa(i)), it.Node())
				i++
			}
		case unstable.InlineTable:
			it := v.Children()
			for it.Next() {
				kv := it.Node()
				if kv.Kind != unstable.KeyValue {
					continue
				}
				parts, r := keyParts(kv)
				sub := append(append([]string(nil), path...), parts...)
				idx.keys[strings.Join(sub, ".")] = at(r)
				value(sub, kv.Value())
			}
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, r := keyParts(e)
			if e.Kind == unstable.ArrayTable {
				path := resolve(nil, parts[:len(parts)-1])
				path = append(path, parts[len(parts)-1])
				ps := strings.Join(path, ".")
				if _, ok := idx.keys[ps]; !ok {
					idx.keys[ps] = header(r)
				}
				arrays[ps]++
				table = append(path, strconv.Itoa(arrays[ps]-1))
			} else {
				table = resolve(nil, parts)
			}
			idx.keys[strings.Join(table, ".")] = header(r)
		case unstable.KeyValue:
			parts, r := keyParts(e)
			path := append(append([]string(nil), table...), parts...)
			idx.keys[strings.Join(path, ".")] = at(r)
			value(path, e.Value())
		}
	}
	return idx
}
