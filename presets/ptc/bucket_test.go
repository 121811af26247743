package ptc

import (
	"fmt"
	"testing"
)

// Vectors computed independently (Python hashlib) from the definition:
// sha256(user+salt)[0:4] as big-endian uint32, mod 100.
func TestBucketVectors(t *testing.T) {
	tests := []struct {
		user, salt string
		want       uint32
	}{
		{"alice", DefaultSalt, 37},
		{"alice", "other", 47},
		{"bob", DefaultSalt, 34},
		{"bob", "other", 92},
		{"carol", DefaultSalt, 60},
		{"carol", "other", 13},
		{"dave", DefaultSalt, 83},
		{"dave", "other", 32},
		{"", DefaultSalt, 3},
		{"用户", DefaultSalt, 90},
		{"用户", "other", 80},
	}
	for _, tt := range tests {
		if got := Bucket(tt.user, tt.salt); got != tt.want {
			t.Errorf("Bucket(%q, %q) = %d, want %d", tt.user, tt.salt, got, tt.want)
		}
	}
}

func TestBucketDeterministicAndSalted(t *testing.T) {
	moved := 0
	for i := range 20 {
		user := fmt.Sprintf("user-%02d", i)
		b := Bucket(user, DefaultSalt)
		if b >= 100 {
			t.Fatalf("bucket %d out of range", b)
		}
		if again := Bucket(user, DefaultSalt); again != b {
			t.Fatalf("Bucket(%q) changed from %d to %d", user, b, again)
		}
		if Bucket(user, "another-salt") != b {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("a new salt re-bucketed none of 20 users")
	}
}
