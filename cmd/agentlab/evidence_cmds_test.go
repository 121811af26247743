package main

import (
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// cmdEvFixture builds the sealed evidence fixture run (internal/evfixture)
// in a data directory, without the engine:
//
//	evfixture DATADIR [postseal]
func cmdEvFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: evfixture DATADIR [postseal]")
	}
	o := evfixture.Options{PostSeal: len(args) > 1 && args[1] == "postseal"}
	r, err := evfixture.Build(ts.MkAbs(args[0]), o)
	if err != nil {
		ts.Fatalf("evfixture: %v", err)
	}
	ts.Setenv("FIXTURE_SEAL", r.Seal)
}

// cmdReplace replaces the first occurrence of OLD by NEW in FILE, as a
// person editing a bundle by hand would:
//
//	replace FILE OLD NEW
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	p := ts.MkAbs(args[0])
	b, err := os.ReadFile(p)
	ts.Check(err)
	if !strings.Contains(string(b), args[1]) {
		ts.Fatalf("replace: %q not in %s", args[1], args[0])
	}
	ts.Check(os.WriteFile(p, []byte(strings.Replace(string(b), args[1], args[2], 1)), 0o644))
}
