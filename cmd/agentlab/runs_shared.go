package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentlab/agentlab/run/share"
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
		t.Append(r.ID, r.Kind, r.Origin, r.Tier, r.Created, seal)
	}
	return t.Render()
}
