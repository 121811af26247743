package redact

import (
	"bytes"
	"io"
)

// Reader returns r with every registered value replaced, as Bytes would
// replace it in the whole stream: a value split across two reads of r is
// caught, because the last len(longest form)-1 bytes of each read wait
// for the next one. It is for payloads too large to hold (a streamed
// artifact); without registered values it returns r itself.
func Reader(r io.Reader) io.Reader {
	set.mu.RLock()
	needles := append([]string(nil), set.needles...)
	set.mu.RUnlock()
	if len(needles) == 0 {
		return r
	}
	var first [256]bool
	for _, n := range needles {
		first[n[0]] = true
	}
	return &reader{src: r, needles: needles, first: first, keep: len(needles[0]) - 1}
}

type reader struct {
	src     io.Reader
	needles []string // longest first, as the Replacer has them
	first   [256]bool
	keep    int    // bytes held back: the longest form but one
	buf     []byte // one read of src
	in      []byte // read, not yet scanned
	out     []byte // scanned, not yet returned
	eof     bool
	err     error
}

func (x *reader) Read(p []byte) (int, error) {
	for len(x.out) == 0 {
		if x.eof {
			return 0, x.err
		}
		if x.buf == nil {
			x.buf = make([]byte, 64<<10)
		}
		n, err := x.src.Read(x.buf)
		x.in = append(x.in, x.buf[:n]...)
		if err != nil {
			x.eof = true
			if err != io.EOF {
				x.err = err
			} else {
				x.err = io.EOF
			}
		}
		x.scan()
	}
	n := copy(p, x.out)
	x.out = x.out[n:]
	return n, nil
}

// scan moves the bytes of in that no later byte can change into out,
// replacing values as strings.Replacer does: left to right, at each
// position the first (longest) form that matches.
func (x *reader) scan() {
	end := len(x.in) - x.keep // a form starting before end lies whole in in
	if x.eof {
		end = len(x.in)
	}
	i, from := 0, 0
	for i < end {
		if !x.first[x.in[i]] {
			i++
			continue
		}
		matched := 0
		for _, n := range x.needles {
			if bytes.HasPrefix(x.in[i:], []byte(n)) {
				matched = len(n)
				break
			}
		}
		if matched == 0 {
			i++
			continue
		}
		x.out = append(x.out, x.in[from:i]...)
		x.out = append(x.out, Mark...)
		i += matched
		from = i
	}
	if i > len(x.in) {
		i = len(x.in)
	}
	x.out = append(x.out, x.in[from:i]...)
	x.in = append(x.in[:0:0], x.in[i:]...)
}
