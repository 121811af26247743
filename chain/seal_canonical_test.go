package chain

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/canon"
)

// TestSealCanonicalEqualsMarshal: a seal is written exactly as canon.Marshal
// writes it (a nil artifact list as the empty list), so its hash never
// changes with the writer.
func TestSealCanonicalEqualsMarshal(t *testing.T) {
	for _, s := range []Seal{
		{},
		{Format: 1, Run: "r1", Plan: "b3:00", Head: "b3:11", Seq: 4, Artifacts: []string{"b3:aa", "b3:bb"}},
		{Format: -3, Run: "<&> \xff ✓", Plan: "\"", Head: "\\", Seq: 1 << 60, Artifacts: []string{}},
		{Run: "\u2028", Seq: -(1 << 53) - 1, Artifacts: []string{""}},
	} {
		norm := s
		if norm.Artifacts == nil {
			norm.Artifacts = []string{}
		}
		want, err := canon.Marshal(norm)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.canonical(); !bytes.Equal(got, want) {
			t.Errorf("seal %+v:\n got %s\nwant %s", s, got, want)
		}
	}
}

func FuzzSealCanonicalEqualsMarshal(f *testing.F) {
	f.Add(1, "r", "b3:p", "b3:h", int64(3), "b3:a", true)
	f.Fuzz(func(t *testing.T, format int, run, plan, head string, seq int64, art string, two bool) {
		s := Seal{Format: format, Run: run, Plan: plan, Head: head, Seq: seq, Artifacts: []string{art}}
		if two {
			s.Artifacts = append(s.Artifacts, run+art)
		}
		want, err := canon.Marshal(s)
		if err != nil {
			t.Skip()
		}
		if got := s.canonical(); !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

// TestVerifyChainRefusesEmptyType: an event without a type is named, even
// when its hash and link are right (a forger's hand-written line).
func TestVerifyChainRefusesEmptyType(t *testing.T) {
	e := Event{Seq: 1, Time: FormatTime(time.Unix(1700000000, 0)), Prev: Genesis("r1").String()}
	h, err := e.ComputeHash()
	if err != nil {
		t.Fatal(err)
	}
	e.Hash = h.String()
	ps := VerifyChain("r1", []Event{e})
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "empty type") {
		t.Errorf("problems %v, want the empty type named", ps)
	}
}
