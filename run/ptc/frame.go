package ptc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Protocol is the version of the frame protocol the prelude and the
// runtime speak; ready and boot carry it.
const Protocol = 1

// Frame types.
const (
	frameReady  = "ready"
	frameBoot   = "boot"
	frameCall   = "call"
	frameResult = "result"
	frameStdout = "stdout"
	frameDone   = "done"
)

// inFrame is any frame the program sends; which fields count depends on
// Type.
type inFrame struct {
	Type     string          `json:"type"`
	Protocol int             `json:"protocol"`
	Language string          `json:"language"`
	Runtime  string          `json:"runtime"`
	Ref      json.RawMessage `json:"ref"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	Data     string          `json:"data"`
	OK       bool            `json:"ok"`
	Output   json.RawMessage `json:"output"`
	Error    *programError   `json:"error"`
}

// programError is the error of a failed done frame.
type programError struct {
	Kind    string `json:"kind"` // tool_error, protocol or exception
	Type    string `json:"type"`
	Message string `json:"message"`
	Tool    string `json:"tool,omitempty"`
	ID      string `json:"id,omitempty"`
}

type bootFrame struct {
	Type        string `json:"type"`
	Protocol    int    `json:"protocol"`
	CallID      string `json:"call_id"`
	MaxFrame    int    `json:"max_frame"`
	MaxParallel int    `json:"max_parallel"`
	MaxPending  int    `json:"max_pending"`
	TimeoutMS   int64  `json:"timeout_ms"`
	Debug       bool   `json:"debug"`
}

type resultFrame struct {
	Type  string          `json:"type"`
	Ref   json.RawMessage `json:"ref"`
	ID    string          `json:"id"`
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value,omitempty"`
	Error *resultError    `json:"error,omitempty"`
}

type resultError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// errProtocol marks a broken protocol; its message says what broke.
var errProtocol = errors.New("protocol")

func protocolf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errProtocol, fmt.Sprintf(format, args...))
}

// frameReader reads newline-terminated frames of at most max bytes
// (without the newline). It never holds more than max+1 bytes of a line.
type frameReader struct {
	r   *bufio.Reader
	max int
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next frame's bytes; io.EOF at a clean end. A line
// longer than max, or a last line without its newline, is a protocol
// error.
func (f *frameReader) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(line)+len(chunk) > f.max+1 {
			return nil, protocolf("the program sent a frame of more than %d bytes (the frame limit); send less per frame: smaller tool arguments, a smaller return value", f.max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) == 0:
			return nil, io.EOF
		case errors.Is(err, io.EOF):
			return nil, protocolf("the program's output ended in the middle of a frame (%d bytes without a newline)", len(line))
		default:
			return nil, err
		}
	}
}

// decode parses one frame from the program.
func decodeFrame(line []byte) (*inFrame, error) {
	line = bytes.TrimRight(line, "\r")
	var f inFrame
	if err := json.Unmarshal(line, &f); err != nil {
		return nil, protocolf("the program sent a malformed frame (%v): %s", err, excerpt(line, 80))
	}
	if f.Type == "" {
		return nil, protocolf("the program sent a frame without a type: %s", excerpt(line, 80))
	}
	return &f, nil
}

// excerpt quotes the start of b for an error message.
func excerpt(b []byte, n int) string {
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// frameWriter writes frames to the program, one at a time, refusing a
// frame longer than max.
type frameWriter struct {
	mu  sync.Mutex
	w   io.Writer
	max int
}

// errFrameTooLarge is returned by write for a frame over the limit;
// nothing was written.
var errFrameTooLarge = errors.New("frame too large")

func (f *frameWriter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) > f.max {
		return fmt.Errorf("%w: %d bytes, the limit is %d", errFrameTooLarge, len(b), f.max)
	}
	b = append(b, '\n')
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err = f.w.Write(b)
	return err
}
