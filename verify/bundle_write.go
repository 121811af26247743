package verify

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/agentlab/agentlab/chain"
)

// textChunk is how much of an artifact's text is JSON-escaped at a time.
const textChunk = 64 << 10

// writeManifest writes the al-bundle JSON of m exactly as json.Marshal
// would (the same keys in the same order), one event line at a time, so
// that a long event log is never marshalled into one more buffer.
func writeManifest(w io.Writer, m *manifest) error {
	head, err := json.Marshal(struct {
		Format   int        `json:"format"`
		Run      string     `json:"run"`
		SealHash string     `json:"seal_hash"`
		Seal     chain.Seal `json:"seal"`
	}{m.Format, m.Run, m.SealHash, m.Seal})
	if err != nil {
		return err
	}
	if _, err := w.Write(head[:len(head)-1]); err != nil { // without its "}"
		return err
	}
	if m.Events == nil {
		if _, err := io.WriteString(w, `,"events":null`); err != nil {
			return err
		}
	} else {
		if _, err := io.WriteString(w, `,"events":[`); err != nil {
			return err
		}
		for i, l := range m.Events {
			q, err := json.Marshal(l)
			if err != nil {
				return err
			}
			if i > 0 {
				q = append([]byte{','}, q...)
			}
			if _, err := w.Write(q); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "]"); err != nil {
			return err
		}
	}
	if m.Signature != nil {
		sig, err := json.Marshal(m.Signature)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, `,"signature":`); err != nil {
			return err
		}
		if _, err := w.Write(sig); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "}")
	return err
}

// writeArtifactBlock writes one al-artifact block exactly as json.Marshal
// of artifact{ID, Text or B64} would (see writeArtifactJSON).
func writeArtifactBlock(w io.Writer, id string, data []byte) error {
	if _, err := io.WriteString(w, artifactOpen); err != nil {
		return err
	}
	if err := writeArtifactJSON(w, id, data); err != nil {
		return err
	}
	_, err := io.WriteString(w, scriptClose)
	return err
}

// writeArtifactJSON writes json.Marshal(artifact{ID, Text or B64}),
// streaming the value: the text is escaped a chunk at a time (cut between
// runes; encoding/json escapes rune by rune, so the pieces join into the
// whole) and binary bytes go through a base64 encoder.
func writeArtifactJSON(w io.Writer, id string, data []byte) error {
	idj, err := json.Marshal(id)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, `{"id":`); err != nil {
		return err
	}
	if _, err := w.Write(idj); err != nil {
		return err
	}
	if utf8.Valid(data) {
		if _, err := io.WriteString(w, `,"text":"`); err != nil {
			return err
		}
		for len(data) > 0 {
			n := min(len(data), textChunk)
			for n < len(data) && !utf8.RuneStart(data[n]) {
				n--
			}
			q, err := json.Marshal(string(data[:n]))
			if err != nil {
				return err
			}
			if _, err := w.Write(q[1 : len(q)-1]); err != nil {
				return err
			}
			data = data[n:]
		}
	} else {
		if _, err := io.WriteString(w, `,"b64":"`); err != nil {
			return err
		}
		enc := base64.NewEncoder(base64.StdEncoding, w)
		if _, err := enc.Write(data); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, `"}`)
	return err
}

// isCanonicalBlock reports whether the JSON text of an artifact block is
// exactly what the writer makes of its id and bytes. The page check then
// takes the block as it is instead of decoding and encoding it again.
func isCanonicalBlock(raw []byte, id string, data []byte) bool {
	same := &sameAs{file: raw}
	return writeArtifactJSON(same, id, data) == nil && same.whole()
}

// sameAs is a writer that checks that what is written to it, in order, is
// exactly file.
type sameAs struct {
	file   []byte
	off    int
	differ bool
}

func (s *sameAs) Write(p []byte) (int, error) {
	if !s.differ && (len(p) > len(s.file)-s.off || string(p) != string(s.file[s.off:s.off+len(p)])) {
		s.differ = true
	}
	s.off += len(p)
	return len(p), nil
}

// whole reports whether everything written was file, all of it.
func (s *sameAs) whole() bool { return !s.differ && s.off == len(s.file) }
