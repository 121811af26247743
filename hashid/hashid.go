// Package hashid is the BLAKE3 content identifier used for plans, artifacts,
// events and seals. IDs are values, never loose strings; their text form is
// "b3:" followed by 64 lowercase hex digits.
//
// Where it fits: docs/architecture.md#leaf-formats.
package hashid

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zeebo/blake3"
)

// Prefix starts the text form of every ID.
const Prefix = "b3:"

// ID is a BLAKE3-256 digest.
type ID [32]byte

// Sum hashes b. It hashes through a pooled Hasher rather than
// blake3.Sum256, whose 9 KB of stack state makes every fresh goroutine
// that hashes (an engine node, say) grow and copy its stack first.
func Sum(b []byte) ID {
	h := hashers.Get().(*blake3.Hasher)
	h.Reset()
	h.Write(b)
	var id ID
	h.Sum(id[:0])
	hashers.Put(h)
	return id
}

var hashers = sync.Pool{New: func() any { return blake3.New() }}

// SumReader hashes everything r yields (SumReaderBuffer with a buffer of
// its own).
func SumReader(r io.Reader) (ID, int64, error) {
	return SumReaderBuffer(r, make([]byte, 32<<10))
}

// SumReaderBuffer hashes everything r yields, reading it through buf
// (which must not be empty). Reading into one buffer the caller reuses
// keeps the bytes in cache for the hash; io.Copy would hand an *os.File to
// its WriteTo, which reads through a fresh 32 KiB buffer instead.
func SumReaderBuffer(r io.Reader, buf []byte) (ID, int64, error) {
	h := hashers.Get().(*blake3.Hasher)
	defer hashers.Put(h)
	h.Reset()
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = h.Write(buf[:n])
			total += int64(n)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return ID{}, total, err
		}
	}
	var id ID
	h.Sum(id[:0])
	return id, total, nil
}

// New returns a streaming hasher whose Sum can be turned into an ID with FromHasher.
func New() *blake3.Hasher { return blake3.New() }

// FromHasher reads the digest of h.
func FromHasher(h *blake3.Hasher) ID {
	var id ID
	copy(id[:], h.Sum(nil))
	return id
}

// String returns "b3:<hex>".
func (id ID) String() string {
	// One allocation: the string itself (a hashed event, artifact and
	// seal each name several).
	var b [len(Prefix) + 2*len(id)]byte
	copy(b[:], Prefix)
	hex.Encode(b[len(Prefix):], id[:])
	return string(b[:])
}

// Hex returns the 64 hex digits without prefix.
func (id ID) Hex() string { return hex.EncodeToString(id[:]) }

// Short returns a 12-digit form for messages.
func (id ID) Short() string { return hex.EncodeToString(id[:6]) }

// IsZero reports whether id is the zero value.
func (id ID) IsZero() bool { return id == ID{} }

// Parse reads "b3:<64 hex>" (the prefix is required).
func Parse(s string) (ID, error) {
	if !strings.HasPrefix(s, Prefix) {
		return ID{}, fmt.Errorf("hash %q must start with %q", s, Prefix)
	}
	return ParseHex(strings.TrimPrefix(s, Prefix))
}

// ParseHex reads 64 hex digits without prefix.
func ParseHex(s string) (ID, error) {
	var id ID
	if len(s) != 64 {
		return ID{}, fmt.Errorf("hash %q must have 64 hex digits, has %d", s, len(s))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return ID{}, fmt.Errorf("hash %q is not hex: %v", s, err)
	}
	if strings.ToLower(s) != s {
		return ID{}, fmt.Errorf("hash %q must be lowercase hex", s)
	}
	return id, nil
}

// MarshalText implements encoding.TextMarshaler.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
