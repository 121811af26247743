// Package share publishes sealed runs to a shared bucket and pulls them
// back (docs/scale.md). The bucket is the only thing machines share:
//
//	artifacts/<hex>                  every blob, content-addressed
//	runs/<id>/<seal-hex>/events.jsonl the sealed event log
//	runs/<id>/<seal-hex>/run.json     the run record of the machine that published first
//	runs/<id>/<seal-hex>/manifest.json the artifacts the run needs
//	runs/<id>/<seal-hex>/bundle.html, report.html (when the run has them)
//	runs/<id>/SEAL                    "b3:<seal>\n", written last
//
// Every object is written once (If-None-Match: *, first writer wins), and
// those of a run live under its seal, so two machines publishing the same
// run write the same bytes and two publishing different seals never touch
// each other's files. SEAL is the commit point: whoever reads it finds
// everything it names.
//
// Where it fits: docs/architecture.md#running.
package share

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/store/bucket"
)

// File names inside runs/<id>/<seal-hex>/.
const (
	SealFile     = "SEAL"
	ManifestFile = "manifest.json"
	BundleFile   = "bundle.html"
	ReportFile   = "report.html"
)

// Caps on what a pull reads of a bucket's run files.
const (
	maxSeal     = 1 << 10
	maxRecord   = 64 << 20
	maxManifest = 64 << 20
	maxEvents   = 2 << 30
	maxPage     = 512 << 20
)

// ErrNotReproducible: the bucket holds the run under another seal.
var ErrNotReproducible = errors.New("not reproducible")

// ErrNotSealed: only sealed runs are published.
var ErrNotSealed = errors.New("not sealed")

// ManifestFormat is the version of manifest.json this build writes and reads.
const ManifestFormat = 1

// Manifest lists what a published run consists of, so that a pull knows
// which blobs to fetch, and how large each may be, before it has a local
// copy to read.
type Manifest struct {
	Format    int              `json:"format"`
	Run       string           `json:"run"`
	Seal      string           `json:"seal"`
	Artifacts []string         `json:"artifacts"`
	Sizes     map[string]int64 `json:"sizes"`
	Pages     []string         `json:"pages"`
}

func sealKey(b *bucket.Bucket, run string) string { return b.Loc.Key("runs", run, SealFile) }

func fileKey(b *bucket.Bucket, run string, seal hashid.ID, name string) string {
	return b.Loc.Key("runs", run, seal.Hex(), name)
}

// parseSealFile reads the content of a SEAL object.
func parseSealFile(run string, b []byte) (hashid.ID, error) {
	s := strings.TrimSpace(string(b))
	id, err := hashid.Parse(s)
	if err != nil {
		return hashid.ID{}, fmt.Errorf("run %s: the bucket's %s is not a seal (%q): %w", run, SealFile, s, err)
	}
	return id, nil
}

func sealFileContent(seal hashid.ID) []byte { return []byte(seal.String() + "\n") }

func isNotFound(err error) bool { return errors.Is(err, bucket.ErrNotFound) }
