package chain

import (
	"testing"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

// goldenSeal is the seal hash of buildChain("r1") under plan b3:111….
const goldenSeal = "b3:385598c15e95d390de56bec767cdb1a444b5089921602b3caa1ad12c149defbd"

func hashOfCanonical(t *testing.T, b []byte) string {
	t.Helper()
	c, err := canon.Canonicalize(b)
	if err != nil {
		t.Fatal(err)
	}
	return hashid.Sum(c).String()
}
