package verify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/hashid"
)

// A bundle's artifacts are the bulk of the file. To keep verify's memory
// near the size of the file, a parsed bundle keeps each artifact as its
// block of JSON text inside the file (blocks) with the hash of its bytes
// (sums), and decodes a block again whenever the artifact is read:
// scanning decodes, hashes and drops one artifact at a time. A block that
// is exactly what the writer makes of its bytes (canonical) is written
// back as it is by the page check; any other is decoded and encoded again
// there, one at a time (writeArtifactBlock), and so fails the check.

// scanBundle reads the manifest of a bundle.html and locates, decodes and
// hashes every embedded artifact, keeping only its block (a slice of
// file). A file without the manifest block is not a bundle (errNotBundle);
// a damaged block is returned as a problem, with as much as could be read.
func scanBundle(file []byte) (*bundle, []string, error) {
	var probs []string
	i := bytes.Index(file, []byte(manifestOpen))
	if i < 0 {
		return nil, nil, errNotBundle
	}
	b := &bundle{blocks: map[string][]byte{}, sums: map[string]hashid.ID{}, canonical: map[string]bool{}}
	rest := file[i+len(manifestOpen):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		return nil, nil, fmt.Errorf("%w: the manifest block is not closed", errNotBundle)
	}
	if err := decodeCapped(rest[:j], &b.m); err != nil {
		probs = append(probs, "the embedded manifest (al-bundle) is unreadable: "+err.Error())
	}
	if b.m.Format != BundleFormat && len(probs) == 0 {
		probs = append(probs, fmt.Sprintf("bundle format %d is not %d; use a matching agentlab", b.m.Format, BundleFormat))
	}
	if len(b.m.Events) > MaxEvents {
		return nil, nil, fmt.Errorf("the bundle has %d events, over the limit of %d", len(b.m.Events), MaxEvents)
	}
	rest = rest[j:]
	n := 0
	for {
		k := bytes.Index(rest, []byte(artifactOpen))
		if k < 0 {
			break
		}
		if n++; n > MaxArtifacts {
			return nil, nil, fmt.Errorf("the bundle has over %d artifacts", MaxArtifacts)
		}
		rest = rest[k+len(artifactOpen):]
		e := bytes.Index(rest, []byte("</script>"))
		if e < 0 {
			probs = append(probs, fmt.Sprintf("embedded artifact block %d is not closed", n))
			break
		}
		block := rest[:e]
		rest = rest[e:]
		id, data, prob, err := decodeArtifactBlock(block)
		if err != nil {
			probs = append(probs, fmt.Sprintf("embedded artifact block %d is unreadable: %v", n, err))
			continue
		}
		switch {
		case strings.HasPrefix(prob, "base64"):
			probs = append(probs, fmt.Sprintf("artifact %s: %s", id, prob))
		case prob != "":
			probs = append(probs, fmt.Sprintf("embedded artifact block %d (%s) %s", n, id, prob))
		}
		if _, dup := b.blocks[id]; dup {
			probs = append(probs, fmt.Sprintf("artifact %s is embedded twice", id))
		}
		b.blocks[id] = block
		b.sums[id] = hashid.Sum(data)
		b.canonical[id] = prob == "" && isCanonicalBlock(block, id, data)
	}
	b.sortArtifacts()
	return b, probs, nil
}

// parseBundle is scanBundle with every artifact decoded into memory, for
// code that edits a bundle's content.
func parseBundle(file []byte) (*bundle, []string, error) {
	b, probs, err := scanBundle(file)
	if err != nil {
		return nil, nil, err
	}
	b.arts = make(map[string][]byte, len(b.blocks))
	for id, block := range b.blocks {
		_, data, _, _ := decodeArtifactBlock(block)
		b.arts[id] = data
	}
	b.blocks, b.sums, b.canonical = nil, nil, nil
	return b, probs, nil
}

// artifactBytes returns the bytes of an embedded artifact, decoding its
// block when the bundle was scanned from a file.
func (b *bundle) artifactBytes(id string) ([]byte, bool) {
	if data, ok := b.arts[id]; ok {
		return data, true
	}
	block, ok := b.blocks[id]
	if !ok {
		return nil, false
	}
	_, data, _, _ := decodeArtifactBlock(block)
	return data, true
}

// has reports whether the bundle embeds artifact id.
func (b *bundle) has(id string) bool {
	if _, ok := b.arts[id]; ok {
		return true
	}
	_, ok := b.blocks[id]
	return ok
}

// sum is the hash of an embedded artifact's bytes.
func (b *bundle) sum(id string) hashid.ID {
	if h, ok := b.sums[id]; ok {
		return h
	}
	return hashid.Sum(b.arts[id])
}

// artifactFields are the keys of an al-artifact block.
var artifactFields = []string{"id", "text", "b64"}

// jsonString is the raw text of a JSON string value, quotes included. It
// is a view of the decoded input (encoding/json passes an Unmarshaler a
// slice of the input it was given), so an artifact's text is not copied
// to be found.
type jsonString []byte

func (s *jsonString) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		return fmt.Errorf("json: cannot unmarshal %s into a string", jsonKind(b))
	}
	*s = b
	return nil
}

// bytes decodes the string. Text with no escape and valid UTF-8 is its own
// value and is returned without a copy.
func (s jsonString) bytes() []byte {
	inner := s[1 : len(s)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	var str string
	_ = json.Unmarshal(s, &str) // valid: encoding/json checked the block
	return []byte(str)
}

// decodeArtifactBlock reads one al-artifact block: the artifact's id and
// bytes, a problem with them (bad base64, not exactly one of text and
// b64), or an error when the block is not a readable block at all. It
// accepts and rejects what a json.Decoder with DisallowUnknownFields
// would, without copying the block.
func decodeArtifactBlock(raw []byte) (id string, data []byte, prob string, err error) {
	if d := jsonDepth(raw); d > MaxJSONDepth {
		return "", nil, "", fmt.Errorf("nested %d levels deep, over the limit of %d", d, MaxJSONDepth)
	}
	var a struct {
		ID   string      `json:"id"`
		Text *jsonString `json:"text"`
		B64  *jsonString `json:"b64"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", nil, "", err
	}
	if err := onlyKeys(raw, artifactFields); err != nil {
		return "", nil, "", err
	}
	switch {
	case a.Text != nil && a.B64 == nil:
		return a.ID, a.Text.bytes(), "", nil
	case a.B64 != nil && a.Text == nil:
		enc := *a.B64
		src := enc.bytes()
		out := make([]byte, base64.StdEncoding.DecodedLen(len(src)))
		n, err := base64.StdEncoding.Decode(out, src)
		if err != nil {
			return a.ID, out[:n], "base64: " + err.Error(), nil
		}
		return a.ID, out[:n], "", nil
	default:
		return a.ID, nil, "needs exactly one of text and b64", nil
	}
}

// onlyKeys fails, as json.Decoder.DisallowUnknownFields does, when the
// JSON object raw (valid JSON) has a key that matches none of fields, case
// folded as encoding/json matches them.
func onlyKeys(raw []byte, fields []string) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil // not an object: Unmarshal has said so already
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return nil
		}
		if raw[i] == ',' {
			i++
			continue
		}
		end := stringEnd(raw, i)
		var key string
		if err := json.Unmarshal(raw[i:end], &key); err != nil {
			return err
		}
		known := false
		for _, f := range fields {
			if strings.EqualFold(f, key) {
				known = true
			}
		}
		if !known {
			return fmt.Errorf("json: unknown field %q", key)
		}
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // the colon
		i = valueEnd(raw, i)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i = stringEnd(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// jsonKind names the kind of a JSON value for an error message.
func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}
