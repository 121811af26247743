package ptc

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFrameReader(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		max    int
		frames []string
		err    string // substring of the error after the frames; "" = clean EOF
	}{
		{"two frames", "{\"a\":1}\n{\"b\":2}\n", 100, []string{`{"a":1}`, `{"b":2}`}, ""},
		{"exactly the limit", strings.Repeat("x", 10) + "\n", 10, []string{strings.Repeat("x", 10)}, ""},
		{"one byte over the limit", strings.Repeat("x", 11) + "\n", 10, nil, "frame of more than 10 bytes"},
		{"huge line never held whole", strings.Repeat("x", 1<<20), 4096, nil, "frame of more than 4096 bytes"},
		{"missing final newline", "{\"a\":1}\n{\"b\"", 100, []string{`{"a":1}`}, "in the middle of a frame"},
		{"empty input", "", 100, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time: frames split across reads must still join.
			fr := newFrameReader(iotest.OneByteReader(strings.NewReader(tt.in)), tt.max)
			var got []string
			var err error
			for {
				var line []byte
				line, err = fr.next()
				if err != nil {
					break
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tt.frames, "|") {
				t.Errorf("frames = %q, want %q", got, tt.frames)
			}
			switch {
			case tt.err == "" && !errors.Is(err, io.EOF):
				t.Errorf("err = %v, want EOF", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, errProtocol)):
				t.Errorf("err = %v, want a protocol error containing %q", err, tt.err)
			}
		})
	}
}

func TestDecodeFrame(t *testing.T) {
	tests := []struct {
		in, typ, err string
	}{
		{`{"type":"ready","protocol":1}`, "ready", ""},
		{"{\"type\":\"done\",\"ok\":true}\r", "done", ""},
		{`not json`, "", "malformed frame"},
		{`[1,2]`, "", "malformed frame"},
		{`{"ok":true}`, "", "without a type"},
		{`{"type":1}`, "", "malformed frame"},
	}
	for _, tt := range tests {
		f, err := decodeFrame([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || f.Type != tt.typ {
			t.Errorf("%s: got %+v, %v", tt.in, f, err)
		}
	}
}

func TestFrameWriterLimit(t *testing.T) {
	var b strings.Builder
	w := &frameWriter{w: &b, max: 20}
	if err := w.write(map[string]string{"type": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := w.write(map[string]string{"type": strings.Repeat("y", 30)}); !errors.Is(err, errFrameTooLarge) {
		t.Fatalf("err = %v, want errFrameTooLarge", err)
	}
	if b.String() != "{\"type\":\"x\"}\n" {
		t.Errorf("written %q: a refused frame must write nothing", b.String())
	}
}

func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("{\"type\":\"ready\"}\n"), 64)
	f.Add([]byte("no newline"), 4)
	f.Add([]byte("\n\n\n"), 1)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			return
		}
		fr := newFrameReader(strings.NewReader(string(in)), max)
		for i := 0; i < len(in)+1; i++ {
			line, err := fr.next()
			if err != nil {
				return
			}
			if len(line) > max {
				t.Fatalf("frame of %d bytes passed a limit of %d", len(line), max)
			}
			_, _ = decodeFrame(line)
		}
		t.Fatal("more frames than input bytes")
	})
}
