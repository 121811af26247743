package main

import (
	"context"
	"fmt"
	"time"

	"github.com/agentlab/agentlab/run/share"
	"github.com/agentlab/agentlab/run/store/bucket"
)

func init() { addDoctorSection(doctorSection{name: "shared store", order: 30, run: doctorShared}) }

// doctorShared checks the shared store, when one is configured: that the
// URL parses, the bucket answers with these credentials, and whether the
// server honours conditional PUTs (without them two writers racing for
// the same run are told apart by reading back, see docs/scale.md).
func doctorShared(env *doctorEnv) doctorResult {
	u, from, err := sharedStoreURL(env.storeURL, storeDir(""))
	if err != nil {
		return doctorResult{Summary: "the store setting cannot be read", Findings: []doctorFinding{{Severity: sevError, Message: err.Error()}}}
	}
	if u == "" {
		return doctorResult{Summary: "none: runs stay in the data dir (--store, " + envStore + " or [store] url to share them)"}
	}
	l, err := bucket.ParseLocation(u)
	if err != nil {
		return doctorResult{Summary: "the store URL is not valid", Findings: []doctorFinding{{Severity: sevError, Message: fmt.Sprintf("%v (from %s)", err, from)}}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := bucket.Open(ctx, l)
	if err != nil {
		return doctorResult{Summary: l.String() + ": cannot configure the client", Findings: []doctorFinding{{Severity: sevError, Message: err.Error()}}}
	}
	fs := []doctorFinding{{Severity: sevInfo, Message: "location " + l.String() + " (from " + from + ")"}}
	cond, err := b.Probe(ctx)
	if err != nil {
		fs = append(fs, doctorFinding{Severity: sevError, Message: "the bucket cannot be written: " + err.Error(), Command: "aws s3 ls s3://" + l.Bucket + " (with the same credentials and endpoint)"})
		return doctorResult{Summary: l.String() + ": unreachable or not writable", Findings: fs}
	}
	fs = append(fs, doctorFinding{Severity: sevInfo, Message: "reachable and writable with these credentials"})
	if cond {
		fs = append(fs, doctorFinding{Severity: sevInfo, Message: "conditional PUT (If-None-Match: *) is honoured: the first writer of every object wins"})
	} else {
		fs = append(fs, doctorFinding{Severity: sevWarning, Message: "the server ignores conditional PUT (If-None-Match: *): publishing falls back to HEAD, PUT and read back, which can let two writers of different seals race (docs/scale.md)"})
	}
	runs, err := share.List(ctx, b)
	if err != nil {
		fs = append(fs, doctorFinding{Severity: sevError, Message: "cannot list runs: " + err.Error()})
	} else {
		fs = append(fs, doctorFinding{Severity: sevInfo, Message: fmt.Sprintf("%d published runs", len(runs))})
	}
	return doctorResult{Summary: l.String() + ": ok", Findings: fs}
}
