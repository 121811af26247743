package provider

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxSSEEvent bounds one server-sent event, so that a broken server cannot
// make the client buffer without end.
const maxSSEEvent = 8 << 20

// sseEvent is one dispatched server-sent event: its type ("" when the
// server named none) and its data lines joined with "\n".
type sseEvent struct {
	Event string
	Data  string
}

// sseReader parses a text/event-stream body (WHATWG HTML §9.2.6) as both
// chat APIs send it. Lines end in "\n", "\r\n" or "\r"; lines starting with
// ":" are comments (keep-alives); "id" and "retry" are ignored because a
// model answer cannot be resumed. Unlike a browser it also dispatches an
// event left pending at the end of the stream, since some servers omit the
// final blank line.
type sseReader struct {
	r     *bufio.Reader
	queue [][]byte // lines split off at a lone '\r'
	err   error    // the read error to report once the queue is empty
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// errSSETooLarge is returned for an event over maxSSEEvent bytes.
var errSSETooLarge = fmt.Errorf("a server-sent event is larger than %d MiB", maxSSEEvent>>20)

// Next returns the next event with data, or io.EOF after the last one.
// Events without any data line are skipped, as the standard asks.
func (s *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
	var data []byte
	hasData := false
	for {
		line, err := s.line()
		if err != nil && !errors.Is(err, io.EOF) {
			return sseEvent{}, err
		}
		eof := err != nil
		if line != nil && len(line) == 0 { // a blank line dispatches
			if hasData {
				ev.Data = string(data)
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		if line != nil && line[0] != ':' {
			field, value, _ := bytes.Cut(line, []byte{':'})
			value = bytes.TrimPrefix(value, []byte{' '})
			switch string(field) {
			case "data":
				if hasData {
					data = append(data, '\n')
				}
				data = append(data, value...)
				hasData = true
				if len(data) > maxSSEEvent {
					return sseEvent{}, errSSETooLarge
				}
			case "event":
				ev.Event = string(value)
			}
		}
		if eof {
			if hasData {
				ev.Data = string(data)
				return ev, nil
			}
			return sseEvent{}, io.EOF
		}
	}
}

// line returns the next line without its terminator. At the end of the
// stream it returns the unterminated rest (nil when there is none) with
// io.EOF. Lines are read up to "\n"; a lone "\r" inside what was read
// also ends a line (a stream that used only "\r" would therefore be seen
// line by line only once a "\n" or the end arrives, which no chat API
// does).
func (s *sseReader) line() ([]byte, error) {
	if len(s.queue) > 0 {
		l := s.queue[0]
		s.queue = s.queue[1:]
		return l, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxSSEEvent {
			return nil, errSSETooLarge
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, chunk...)
			continue
		}
		if err != nil && len(buf) == 0 && len(chunk) == 0 {
			return nil, err
		}
		line := append(buf, chunk...)
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if bytes.IndexByte(line, '\r') >= 0 {
			parts := bytes.Split(line, []byte{'\r'})
			line = parts[0]
			s.queue = append(s.queue, parts[1:]...)
			if err != nil { // the pieces before the end are whole lines
				s.err, err = err, nil
			}
		}
		if line == nil {
			line = []byte{}
		}
		return line, err
	}
}

// idleReader cancels a stream that stays silent for longer than the idle
// timeout: every read that returns data re-arms the timer, and when it
// fires, stall cancels the request so the blocked read returns.
type idleReader struct {
	r     io.Reader
	d     time.Duration
	timer *time.Timer
}

func newIdleReader(r io.Reader, d time.Duration, stall func()) *idleReader {
	ir := &idleReader{r: r, d: d}
	if d > 0 {
		ir.timer = time.AfterFunc(d, stall)
	}
	return ir
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 && ir.timer != nil {
		ir.timer.Reset(ir.d)
	}
	return n, err
}

func (ir *idleReader) stop() {
	if ir.timer != nil {
		ir.timer.Stop()
	}
}
