package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// TornTail describes an incomplete last line of an event log: the remains
// of a write cut short by a crash, a kill or a full disk.
type TornTail struct {
	Offset int64 // where the incomplete line starts; the log is whole up to here
	Bytes  int   // how long it is
}

// LineError is a line of an event log that cannot be read as an event.
type LineError struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// ParseLog reads the bytes of an events.jsonl file (name is used in
// errors). Every complete line must be one event object with no other keys
// (docs/formats.md); a line that is a valid event but not byte-identical to
// its canonical form is returned as a Problem, since a verifier in another
// language would hash it differently. Only the last line may be incomplete:
// if it lacks its newline, or fails to parse, it is returned as a TornTail
// and left out. An unreadable line before the last is a *LineError. The
// chain itself is not checked here; see VerifyChain.
func ParseLog(name string, b []byte) ([]Event, []Problem, *TornTail, error) {
	var (
		evs   []Event
		probs []Problem
		off   int
	)
	for lineNo := 1; off < len(b); lineNo++ {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			return evs, probs, &TornTail{Offset: int64(off), Bytes: len(b) - off}, nil
		}
		line := b[off : off+end]
		last := off+end+1 == len(b)
		if e, ok := ReadCanonicalLine(line); ok {
			evs = append(evs, e)
			off += end + 1
			continue
		}
		e, err := decodeLine(line)
		if err != nil {
			if last {
				return evs, probs, &TornTail{Offset: int64(off), Bytes: end + 1}, nil
			}
			col, msg := 1, err.Error()
			var se *json.SyntaxError
			switch {
			case errors.As(err, &se):
				col = int(se.Offset)
			case errors.Is(err, io.ErrUnexpectedEOF):
				col, msg = len(line)+1, "the line ends in the middle of an event"
			case len(bytes.TrimSpace(line)) == 0:
				msg = "the line is empty; every line of an event log is one event"
			}
			return nil, nil, nil, &LineError{File: name, Line: lineNo, Col: col, Msg: msg}
		}
		if c, err := e.Line(); err != nil || !bytes.Equal(c, line) {
			probs = append(probs, Problem{Seq: e.Seq, Message: fmt.Sprintf("line %d is not in canonical JSON form", lineNo)})
		}
		evs = append(evs, e)
		off += end + 1
	}
	return evs, probs, nil, nil
}

// decodeLine parses one line strictly: unknown keys are an error.
func decodeLine(line []byte) (Event, error) {
	var e Event
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, err
	}
	if dec.More() {
		return e, errors.New("more than one JSON value on the line")
	}
	if e.Seq == 0 || e.Hash == "" || e.Type == "" {
		return e, errors.New(`event lacks "seq", "type" or "hash"`)
	}
	return e, nil
}
