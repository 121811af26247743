package main

import (
	"strings"

	"github.com/agentlab/agentlab/run/runlog"
)

// pickRun resolves a run id or a unique prefix of one; "" means the
// latest run (newest by creation time).
func pickRun(dir, arg string) (string, error) {
	recs, err := runlog.List(dir)
	if err != nil {
		return "", exitf(exitUsage, "cannot list runs in %s: %v", dir, err)
	}
	if len(recs) == 0 {
		return "", exitf(exitUsage, "there are no runs in %s; start one with agentlab run FLOW (or pass --data-dir)", dir)
	}
	if arg == "" {
		return recs[0].ID, nil
	}
	var hits []string
	for _, r := range recs {
		if r.ID == arg {
			return r.ID, nil
		}
		if strings.HasPrefix(r.ID, arg) {
			hits = append(hits, r.ID)
		}
	}
	switch len(hits) {
	case 0:
		return "", exitf(exitUsage, "no run %q in %s; list runs with agentlab runs list", arg, dir)
	case 1:
		return hits[0], nil
	}
	if len(hits) > 5 {
		hits = append(hits[:5], "…")
	}
	return "", exitf(exitUsage, "run prefix %q is ambiguous (%s); give more characters", arg, strings.Join(hits, ", "))
}
