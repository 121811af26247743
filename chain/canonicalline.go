package chain

import (
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
			n, ok := canon.CanonicalPrefix(line[start:])
			if !ok || string(line[start:start+n]) == "null" {
				return e, false
			}
			s.i += n
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
