package verify

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestBundleCutShortInsideAnArtifactBlock: a bundle whose download stopped
// in the middle of an embedded artifact (no closing tag after it) is
// refused with the block named, not read past its end.
func TestBundleCutShortInsideAnArtifactBlock(t *testing.T) {
	orig, _ := fixtureBundle(t)
	i := bytes.LastIndex(orig, []byte(artifactOpen))
	if i < 0 {
		t.Fatal("the fixture bundle has no artifact block")
	}
	cut := orig[:i+len(artifactOpen)+10]
	_, probs, err := parseBundle(cut)
	if err == nil && !strings.Contains(strings.Join(probs, "\n"), "is not closed") {
		t.Errorf("parseBundle: %v %q; want the unclosed block reported", err, probs)
	}
	if res := verifyVariant(t, cut, Options{}); res.OK {
		t.Error("a bundle cut inside an artifact block verifies")
	}
}

// TestMetricCitingTheFirstColumnVerifies: a metric may cite the first
// column of a snapshot (index 0); the checker must find it there and not
// report a cell that does not exist. The forger's mirror image: a check
// that skipped column 0 would let a forged value in it pass unseen.
func TestMetricCitingTheFirstColumnVerifies(t *testing.T) {
	amountFirst := func(s *evidence.Snapshot) {
		s.Columns = []string{"amount", "region", "customer"}
		s.Types = []string{evidence.TypeReal, evidence.TypeText, evidence.TypeText}
		for _, r := range s.Rows {
			r[0], r[1] = r[1], r[0]
		}
	}
	r := fixtureRun(t, evfixture.Options{Snapshot: amountFirst})
	res, err := Verify(r.Dir, Options{Expect: r.Seal})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("a run whose metrics cite column 0 does not verify: %v", failing(res.Checks))
	}
	var buf bytes.Buffer
	if err := WriteBundle(&buf, r.Dir, BundleOptions{}); err != nil {
		t.Fatal(err)
	}
	if res := verifyVariant(t, buf.Bytes(), Options{Expect: r.Seal}); !res.OK {
		t.Fatalf("its bundle does not verify: %v", failing(res.Checks))
	}
}

// TestRunRecordWithoutAnID: a run.json whose id was removed is refused as
// such, before any check compares names with an empty id.
func TestRunRecordWithoutAnID(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{})
	if err := evfixture.EditRecord(r.Dir, func(rec map[string]any) { delete(rec, "id") }); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(r.Dir, Options{})
	if err == nil && res.OK {
		t.Fatal("a run.json without an id verifies")
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	} else {
		for _, d := range failing(res.Checks) {
			msg += d + "\n"
		}
	}
	if !strings.Contains(msg, "no run id") {
		t.Errorf("got %q; want the missing id named", msg)
	}
}

// TestEventLineNestedTooDeepIsNamed: a forger puts a nesting bomb in one
// of the bundle's event lines; the verifier refuses it without parsing it
// and names the line, counted from 1 as a person reading the list would.
func TestEventLineNestedTooDeepIsNamed(t *testing.T) {
	orig, _ := fixtureBundle(t)
	bomb := strings.Repeat("[", MaxJSONDepth+1) + strings.Repeat("]", MaxJSONDepth+1)
	b := parsed(t, orig, func(bd *bundle) { bd.m.Events[2] = bomb })
	res := verifyVariant(t, b, Options{})
	if res.OK {
		t.Fatal("a bundle with a nesting bomb in an event verifies")
	}
	if d := failing(res.Checks)[CheckEvents]; !strings.Contains(d, "event line 3 is nested deeper") {
		t.Errorf("events check: %q; want event line 3 named", d)
	}
}

// TestDirectoryThatIsNoRunSaysWhy: verify is pointed at a directory that
// is not a sealed run — one a kill stopped while it was starting (an event
// log, no run.json) and one that is no run at all — and each gets the
// message that says which, as an unreadable input.
func TestDirectoryThatIsNoRunSaysWhy(t *testing.T) {
	starting := t.TempDir()
	if err := os.WriteFile(filepath.Join(starting, "events.jsonl"), []byte{}, 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		starting:    "has events.jsonl but no run.json (the run was stopped while starting)",
		t.TempDir(): "is neither a bundle nor a run directory",
	} {
		_, err := Verify(dir, Options{})
		var u *UnreadableError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an unreadable input that says %q", dir, err, want)
		}
	}
}

// TestPlanCheckSaysResumedOnlyForAResume: the plan check's detail says a
// run was resumed under another plan only when it was; a run that was
// never resumed must not read as one (an auditor would look for an
// attempt that never happened).
func TestPlanCheckSaysResumedOnlyForAResume(t *testing.T) {
	orig, _ := fixtureBundle(t)
	detail := func(b []byte) string {
		res := verifyVariant(t, b, Options{})
		if !res.OK {
			t.Fatalf("does not verify: %v", failing(res.Checks))
		}
		for _, c := range res.Checks {
			if c.Name == CheckPlan {
				return c.Detail
			}
		}
		t.Fatal("no plan check")
		return ""
	}
	if d := detail(orig); strings.Contains(d, "resumed") {
		t.Errorf("a run never resumed: plan check says %q", d)
	}
	if d := detail(withResumed(true, "")(t, orig)); !strings.Contains(d, "resumed under it; started under plan") {
		t.Errorf("a run started under another plan and resumed under the sealed one: plan check says %q", d)
	}
}

// TestForgedSealHeadIsNamed: a forger moves the recorded seal's head (and
// re-hashes the seal object so that it matches its own hash); the seal
// check fails and says it is the head that differs, not the run id.
func TestForgedSealHeadIsNamed(t *testing.T) {
	orig, _ := fixtureBundle(t)
	b := parsed(t, orig, func(bd *bundle) {
		bd.m.Seal.Head = hashid.Sum([]byte("another head")).String()
		h, err := bd.m.Seal.Hash()
		if err != nil {
			t.Fatal(err)
		}
		bd.m.SealHash = h.String()
	})
	res := verifyVariant(t, b, Options{})
	if res.OK {
		t.Fatal("a bundle with a forged seal head verifies")
	}
	if d := failing(res.Checks)[CheckSeal]; !strings.Contains(d, "head: recorded event") || strings.Contains(d, "run id differs") {
		t.Errorf("seal check: %q; want the head named", d)
	}
}
