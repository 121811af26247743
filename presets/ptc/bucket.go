package ptc

import (
	"crypto/sha256"
	"encoding/binary"
)

// DefaultSalt is the rollout salt when PTC_ROLLOUT_SALT is not set.
const DefaultSalt = "ptc-rollout"

// Bucket returns the rollout bucket (0–99) of a user: the first four bytes
// of SHA-256 over the UTF-8 bytes of the user id immediately followed by
// the salt, read as a big-endian uint32, modulo 100. A user keeps the same
// bucket as long as the salt stays; changing the salt re-draws everyone.
func Bucket(user, salt string) uint32 {
	sum := sha256.Sum256([]byte(user + salt))
	return binary.BigEndian.Uint32(sum[:4]) % 100
}
