package provider

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAllSSE(t *testing.T, r io.Reader) ([]sseEvent, error) {
	t.Helper()
	s := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"lf", "data: a\n\ndata: b\n\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"crlf", "event: x\r\ndata: a\r\n\r\n", []sseEvent{{Event: "x", Data: "a"}}},
		{"cr", "data: a\r\rdata: b\r\r", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"multi-line data", "data: a\ndata: b\n\n", []sseEvent{{Data: "a\nb"}}},
		{"no space after colon", "data:a\n\n", []sseEvent{{Data: "a"}}},
		{"only one space stripped", "data:  a\n\n", []sseEvent{{Data: " a"}}},
		{"comments and keep-alives", ": ping\n\n: x\ndata: a\n\n", []sseEvent{{Data: "a"}}},
		{"event without data skipped", "event: ping\n\ndata: a\n\n", []sseEvent{{Data: "a"}}},
		{"event name resets", "event: x\n\ndata: a\n\n", []sseEvent{{Data: "a"}}},
		{"ignored fields", "id: 1\nretry: 10\ndata: a\n\n", []sseEvent{{Data: "a"}}},
		{"pending at EOF", "data: a\n\ndata: b", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"pending at EOF after newline", "data: b\n", []sseEvent{{Data: "b"}}},
		{"empty data", "data\n\n", []sseEvent{{Data: ""}}},
		{"colon in value", `data: {"a":"b:c"}` + "\n\n", []sseEvent{{Data: `{"a":"b:c"}`}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readAllSSE(t, r)
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
				}
			}
		})
	}
}

func TestSSEReaderErrors(t *testing.T) {
	boom := errors.New("connection reset")
	_, err := readAllSSE(t, io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the read error", err)
	}
	big := "data: " + strings.Repeat("x", maxSSEEvent+1) + "\n\n"
	if _, err := readAllSSE(t, strings.NewReader(big)); !errors.Is(err, errSSETooLarge) {
		t.Errorf("err = %v, want errSSETooLarge", err)
	}
	lines := strings.Repeat("data: "+strings.Repeat("y", 1<<20)+"\n", 9) + "\n"
	if _, err := readAllSSE(t, strings.NewReader(lines)); !errors.Is(err, errSSETooLarge) {
		t.Errorf("many lines: err = %v, want errSSETooLarge", err)
	}
}

// FuzzSSE checks that no byte stream makes the event reader panic or loop,
// that data never keeps a line terminator, that how the bytes arrive does
// not change the events, and that both decoders turn any
// stream into a result or an error without panicking.
func FuzzSSE(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":1}}}\r\n\r\n"))
	f.Add([]byte(": ping\r\rdata:x\rdata\n\n"))
	f.Add([]byte("data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newSSEReader(strings.NewReader(string(data)))
		for i := 0; ; i++ {
			ev, err := s.Next()
			if err != nil {
				break
			}
			if strings.ContainsAny(ev.Data, "\r") || strings.ContainsAny(ev.Event, "\r\n") {
				t.Fatalf("terminator kept in %+v", ev)
			}
			if i > len(data) {
				t.Fatal("more events than bytes")
			}
		}
		whole, err1 := readAllSSE(t, strings.NewReader(string(data)))
		bytewise, err2 := readAllSSE(t, iotest.OneByteReader(strings.NewReader(string(data))))
		if !reflect.DeepEqual(whole, bytewise) || (err1 == nil) != (err2 == nil) {
			t.Fatalf("chunking changes the events: %+v %v / %+v %v", whole, err1, bytewise, err2)
		}
		for _, p := range []protocol{&openaiProto{}, anthropicProto{}} {
			res := &streamResult{}
			var pieces strings.Builder
			err := p.decode(newSSEReader(strings.NewReader(string(data))), res, func(s string) { pieces.WriteString(s) })
			if err == nil && pieces.String() != res.text.String() {
				t.Fatalf("streamed %q, text %q", pieces.String(), res.text.String())
			}
		}
	})
}
