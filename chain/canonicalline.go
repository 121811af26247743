package chain

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/agentlab/agentlab/canon"
)

// ReadCanonicalLine reads one event line without encoding/json. It
// accepts only lines that are already in canonical form (docs/formats.md)
// with the exact key set of an event; for any other line it returns false
// and the caller reads it the strict way (ParseLog does). So it may refuse
// a good line, but never accepts a line the strict reader would reject or
// report as not canonical (FuzzReadCanonicalLine checks this). The event's
// data is a slice of line.
func ReadCanonicalLine(line []byte) (Event, bool) {
	return readCanonicalLine(line, "")
}

// ReadCanonicalLineText is ReadCanonicalLine for a line also given as text
// (the same bytes):
// the event's strings are cut from text instead of being allocated one by
// one, so a whole log converted to one string once gives 100,000 events
// their strings without 500,000 small allocations.
func ReadCanonicalLineText(line []byte, text string) (Event, bool) {
	if len(text) != len(line) {
		return Event{}, false
	}
	return readCanonicalLine(line, text)
}

// readCanonicalLine reads line, cutting the event's strings from text
// when it is given ("" allocates each string on its own, so that an event
// keeps only its fields, not its whole line).
func readCanonicalLine(line []byte, text string) (Event, bool) {
	var e Event
	s := scanner{b: line, s: text}
	if !s.byte('{') {
		return e, false
	}
	order := []string{"data", "hash", "node", "prev", "seq", "time", "type"}
	k := 0
	first := true
	seen := 0
	for !s.peek('}') {
		if !first && !s.byte(',') {
			return e, false
		}
		first = false
		key, ok := s.plainString()
		if !ok || !s.byte(':') {
			return e, false
		}
		for k < len(order) && order[k] != key {
			k++
		}
		if k == len(order) {
			return e, false // unknown, repeated or out of order
		}
		seen |= 1 << k
		k++
		start := s.i
		switch key {
		case "data":
			if !s.value(0) || string(line[start:s.i]) == "null" {
				return e, false
			}
			e.Data = line[start:s.i:s.i]
		case "seq":
			n, ok := s.int()
			if !ok || n < 1 {
				return e, false
			}
			e.Seq = n
		default:
			v, ok := s.plainString()
			if !ok {
				return e, false
			}
			switch key {
			case "hash":
				e.Hash = v
			case "node":
				if v == "" {
					return e, false
				}
				e.Node = v
			case "prev":
				e.Prev = v
			case "time":
				e.Time = v
			case "type":
				e.Type = v
			}
		}
	}
	s.i++
	if s.i != len(line) || e.Seq == 0 || e.Hash == "" || e.Type == "" {
		return e, false
	}
	// hash, prev, seq, time and type: the keys a canonical line always has
	if want := 1<<1 | 1<<3 | 1<<4 | 1<<5 | 1<<6; seen&want != want {
		return e, false
	}
	return e, true
}

// MaxDataDepth is the deepest nesting of event data the canonical reader
// follows; deeper data is left to the strict reader.
const MaxDataDepth = 200

// scanner checks canonical JSON.
type scanner struct {
	b []byte
	s string // the same bytes as b, where plainString cuts its strings ("" if not given)
	i int
}

// text returns b[i:j] as a string, cut from s when it is given.
func (s *scanner) text(i, j int) string {
	if len(s.s) == len(s.b) {
		return s.s[i:j]
	}
	return string(s.b[i:j])
}

func (s *scanner) peek(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *scanner) byte(c byte) bool {
	if s.peek(c) {
		s.i++
		return true
	}
	return false
}

// plainString reads a string without escapes or control characters and
// returns it; any escape makes it refuse (the fallback handles those).
func (s *scanner) plainString() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !utf8.Valid(v) {
				return "", false
			}
			return s.text(start, s.i-1), true
		case c == '\\' || c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// str skips a canonical string: escapes only where canon writes them.
func (s *scanner) str() bool {
	if !s.byte('"') {
		return false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			ok := utf8.Valid(s.b[start:s.i])
			s.i++
			return ok
		case c < 0x20:
			return false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', 'n', 'r', 't', 'b', 'f':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false
				}
				h := string(s.b[s.i+2 : s.i+6])
				n, err := strconv.ParseUint(h, 16, 16)
				// canon writes \u00xx (lowercase) only for controls without a short escape
				if err != nil || n >= 0x20 || n == '\n' || n == '\r' || n == '\t' || n == '\b' || n == '\f' || h != "00"+strconv.FormatUint(n|0x100, 16)[1:] {
					return false
				}
				s.i += 6
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

// value skips one canonical JSON value.
func (s *scanner) value(depth int) bool {
	if depth > MaxDataDepth || s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		s.i++
		var prev []byte
		first := true
		for !s.peek('}') {
			if !first && !s.byte(',') {
				return false
			}
			start := s.i
			if !s.str() {
				return false
			}
			key := s.b[start+1 : s.i-1]
			if bytes.IndexByte(key, '\\') >= 0 || (!first && bytes.Compare(prev, key) >= 0) {
				return false // escaped keys are left to the fallback; keys must ascend
			}
			prev, first = key, false
			if !s.byte(':') || !s.value(depth+1) {
				return false
			}
		}
		s.i++
		return true
	case c == '[':
		s.i++
		first := true
		for !s.peek(']') {
			if !first && !s.byte(',') {
				return false
			}
			first = false
			if !s.value(depth + 1) {
				return false
			}
		}
		s.i++
		return true
	case c == '"':
		return s.str()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.i
		for s.i < len(s.b) && bytes.IndexByte([]byte("+-.eE0123456789"), s.b[s.i]) >= 0 {
			s.i++
		}
		lit := s.text(start, s.i)
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil && i >= -(1<<53) && i <= 1<<53 {
			// canon.Number's integer case, without allocating its result
			var buf [24]byte
			return string(strconv.AppendInt(buf[:0], i, 10)) == lit && canon.ValidNumber(lit)
		}
		n, err := canon.Number(lit)
		return err == nil && n == lit && canon.ValidNumber(lit)
	}
	return false
}

func (s *scanner) lit(w string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		s.i += len(w)
		return true
	}
	return false
}

// int reads a canonical integer.
func (s *scanner) int() (int64, bool) {
	start := s.i
	for s.i < len(s.b) && (s.b[s.i] == '-' || (s.b[s.i] >= '0' && s.b[s.i] <= '9')) {
		s.i++
	}
	lit := s.text(start, s.i)
	n, err := strconv.ParseInt(lit, 10, 64)
	var buf [24]byte
	if err != nil || string(strconv.AppendInt(buf[:0], n, 10)) != lit || n > 1<<53 {
		return 0, false
	}
	return n, true
}
