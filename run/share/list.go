package share

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store/bucket"
)

// RemoteRun is a run the bucket holds (a SEAL found), with the record of
// the machine that published it first.
type RemoteRun struct {
	ID       string `json:"id"`
	Seal     string `json:"seal"`
	Plan     string `json:"plan,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Origin   string `json:"origin,omitempty"`
	Tier     string `json:"tier,omitempty"`
	Created  string `json:"created,omitempty"`
	Finished string `json:"finished,omitempty"`
	Problem  string `json:"problem,omitempty"` // why the record could not be read
}

// List returns the committed runs of the bucket (those with a SEAL),
// newest first by creation time, then by id. A run being published (no
// SEAL yet) is not listed.
func List(ctx context.Context, b *bucket.Bucket) ([]RemoteRun, error) {
	var ids []string
	err := b.List(ctx, "runs/", "/", func(key string, _ int64) error {
		id := strings.TrimSuffix(strings.TrimPrefix(key, "runs/"), "/")
		if runlog.CheckID(id) == nil {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []RemoteRun
	for _, id := range ids {
		held, err := b.Get(ctx, sealKey(b, id), maxSeal)
		if isNotFound(err) {
			continue
		}
		r := RemoteRun{ID: id}
		if errors.Is(err, bucket.ErrTooLarge) {
			r.Problem = "SEAL is not a seal: " + err.Error()
			out = append(out, r)
			continue
		}
		if err != nil {
			return nil, err
		}
		seal, err := parseSealFile(id, held)
		if err != nil {
			r.Problem = err.Error()
			out = append(out, r)
			continue
		}
		r.Seal = seal.String()
		rb, err := b.Get(ctx, fileKey(b, id, seal, runlog.RecordFile), maxRecord)
		var rec runlog.Record
		if err == nil {
			err = json.Unmarshal(rb, &rec)
		}
		if err != nil {
			r.Problem = err.Error()
		} else {
			r.Plan, r.Kind, r.Origin, r.Tier, r.Created, r.Finished = rec.Plan, rec.Kind, rec.Origin, rec.Tier, rec.Created, rec.Finished
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created > out[j].Created
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}
