package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/agentlab/agentlab/run/share"
	"github.com/agentlab/agentlab/run/store/bucket"
)

// runsListShared lists the committed runs of a shared store.
func runsListShared(w io.Writer, storeURL, format string) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	b, err := openSharedStore(ctx, storeURL, storeDir(""))
	if err != nil {
		return err
	}
	runs, err := share.List(ctx, b)
	if err != nil {
		if bucket.Unreachable(err) {
			return exitf(exitUsage, "%v", err)
		}
		return exitf(exitFailed, "%v", err)
	}
	if runs == nil {
		runs = []share.RemoteRun{}
	}
	if format == "json" {
		return writeJSON(w, map[string]any{"runs": runs})
	}
	if len(runs) == 0 {
		fmt.Fprintf(w, "no runs in %s\n", b.Loc)
		return nil
	}
	t := newTable(w)
	t.Header("run", "kind", "origin", "tier", "created", "seal")
	for _, r := range runs {
		seal := short(r.Seal)
		if r.Problem != "" {
			seal += " (" + r.Problem + ")"
		}
		t.Append(printable(r.ID), printable(r.Kind), printable(r.Origin), printable(r.Tier), printable(r.Created), printable(seal))
	}
	return t.Render()
}

// printable shows a value read from a bucket with its control characters
// escaped: a run.json written by someone else must not reach the terminal
// as escape sequences or break the table's lines.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}
