package chain

import (
	"bytes"
	"strconv"
)

// decodeCanonicalLine reads a line that is already in canonical form
// without a JSON decoder: the keys in their fixed order (data, hash, node,
// prev, seq, time, type), the data taken as it stands, every other string
// free of escapes. ok is true only when the event it read writes back to
// exactly line, so it is the event the strict decoder would return and
// there is nothing to report about the line; any other line (escapes,
// another key order, invalid JSON) is left to decodeLine.
func decodeCanonicalLine(line []byte) (e Event, ok bool) {
	p := len(line)
	if p < 2 || line[0] != '{' || line[p-1] != '}' {
		return Event{}, false
	}
	p--
	var typ, tm, prev, node, hash []byte
	if typ, p, ok = stringBefore(line, p, `"type":`); !ok || !comma(line, p) {
		return Event{}, false
	}
	p--
	if tm, p, ok = stringBefore(line, p, `"time":`); !ok || !comma(line, p) {
		return Event{}, false
	}
	p--
	// seq: digits after "seq":
	i := p
	for i > 0 && line[i-1] >= '0' && line[i-1] <= '9' {
		i--
	}
	seq, err := strconv.ParseInt(string(line[i:p]), 10, 64)
	if err != nil || !bytes.HasSuffix(line[:i], []byte(`,"seq":`)) {
		return Event{}, false
	}
	p = i - len(`,"seq":`)
	if prev, p, ok = stringBefore(line, p, `"prev":`); !ok {
		return Event{}, false
	}
	if !comma(line, p) {
		return Event{}, false
	}
	p--
	hash, q, ok := stringBefore(line, p, `"hash":`)
	if !ok {
		if node, p, ok = stringBefore(line, p, `"node":`); !ok || !comma(line, p) {
			return Event{}, false
		}
		p--
		if hash, q, ok = stringBefore(line, p, `"hash":`); !ok {
			return Event{}, false
		}
	}
	e = Event{Seq: seq, Time: string(tm), Type: string(typ), Node: string(node), Prev: string(prev), Hash: string(hash)}
	switch {
	case q == 1:
	case q > len(`{"data":`) && line[q-1] == ',' && bytes.HasPrefix(line, []byte(`{"data":`)):
		e.Data = bytes.Clone(line[len(`{"data":`) : q-1])
	default:
		return Event{}, false
	}
	if e.Seq == 0 || e.Hash == "" || e.Type == "" {
		return Event{}, false
	}
	if c, err := e.Line(); err != nil || !bytes.Equal(c, line) {
		return Event{}, false
	}
	return e, true
}

// stringBefore reads, backwards from end (the index just past it), a
// string value with no escapes preceded by key. It returns the value and
// the index where the key starts.
func stringBefore(line []byte, end int, key string) ([]byte, int, bool) {
	if end < 2 || line[end-1] != '"' {
		return nil, 0, false
	}
	open := bytes.LastIndexByte(line[:end-1], '"')
	if open < 0 {
		return nil, 0, false
	}
	v := line[open+1 : end-1]
	for _, c := range v {
		if c < 0x20 || c == '\\' {
			return nil, 0, false
		}
	}
	if !bytes.HasSuffix(line[:open], []byte(key)) {
		return nil, 0, false
	}
	return v, open - len(key), true
}

// comma reports whether the byte just before p is a comma.
func comma(line []byte, p int) bool { return p > 0 && line[p-1] == ',' }
