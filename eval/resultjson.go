package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// WriteJSON writes r as indented JSON (two spaces, HTML left unescaped),
// byte for byte what a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) writes, but one case at a time: a result of many
// thousand cases is never held in memory a second and third time as its
// encoding and indented copy.
func WriteJSON(w io.Writer, r *Result) error {
	head := *r
	head.Cases = nil
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&head); err != nil {
		return err
	}
	// Strings cannot hold a raw newline, so the one top-level "cases" key
	// is the only place a newline and exactly two spaces precede it.
	const marker = "\n  \"cases\": null"
	at := bytes.Index(b.Bytes(), []byte(marker))
	if at < 0 {
		return errors.New("eval: the result's cases have no place in its JSON")
	}
	at += len(marker) - len("null")
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(b.Bytes()[:at])
	if r.Cases == nil {
		bw.WriteString("null")
	} else if len(r.Cases) == 0 {
		bw.WriteString("[]")
	} else {
		var cb bytes.Buffer
		cenc := json.NewEncoder(&cb)
		cenc.SetIndent("    ", "  ")
		cenc.SetEscapeHTML(false)
		bw.WriteString("[\n")
		for i := range r.Cases {
			cb.Reset()
			if err := cenc.Encode(&r.Cases[i]); err != nil {
				return err
			}
			if i > 0 {
				bw.WriteString(",\n")
			}
			bw.WriteString("    ")
			bw.Write(bytes.TrimSuffix(cb.Bytes(), []byte("\n")))
		}
		bw.WriteString("\n  ]")
	}
	bw.Write(b.Bytes()[at+len("null"):])
	return bw.Flush()
}
