package sources

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
)

// Cache keeps the private databases built from source files, so that many
// runs of one flow in one process (an evaluation's cases) build each
// source once per data version instead of once per run. Every run still
// reads and hashes the file itself: the cache is keyed by that hash (and
// by everything else the build depends on), so a file edited between two
// runs is built again, and a run's recorded source hash is always of the
// bytes it read. Each run gets its own read-only connection to the shared
// immutable file, with its own authorizer: queries, snapshots and
// refusals are exactly a standalone run's.
type Cache struct {
	mu    sync.Mutex
	dir   string
	n     int
	built map[cacheKey]*builtSource
	// indexQueries, when set, is how many queries the reader expects
	// (NewIndexedCache).
	indexQueries int
}

// cacheKey is what a private database's content depends on: the source's
// name (a CSV's table is named after it), its declaration and the bytes
// of its file.
type cacheKey struct {
	key, kind, table, mask, hash string
}

// builtSource is one private database and what was learnt building it.
type builtSource struct {
	path   string
	tables []table
	masked map[string]map[string]bool
	names  map[string]bool
}

// NewCache returns an empty cache; Close removes what it built.
func NewCache() *Cache { return &Cache{built: map[cacheKey]*builtSource{}} }

// Close removes every private database the cache built. Databases loaded
// from it must be closed first.
func (c *Cache) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.built = map[cacheKey]*builtSource{}
	if c.dir == "" {
		return nil
	}
	err := os.RemoveAll(c.dir)
	c.dir = ""
	return err
}

// build returns the private database for s (whose hash is set) built from
// data, building it on first use. Builds are serialised: they happen once
// per source and data version.
func (c *Cache) build(ctx context.Context, key, file string, data []byte, s *source, fail func(code, fix, format string, args ...any) *diag.Diagnostic) (string, *diag.Diagnostic) {
	k := cacheKey{key: key, kind: s.spec.Kind, table: s.spec.Table, mask: strings.Join(s.spec.MaskColumns, "\x00"), hash: s.hash}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.built[k]; ok {
		s.tables = cloneTables(b.tables)
		s.masked, s.names = b.masked, b.names
		return b.path, nil
	}
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "agentlab-sources-")
		if err != nil {
			return "", fail(CodeOpen, "check the temporary directory is writable and has space", "cannot create a private database: %v", err)
		}
		c.dir = dir
	}
	c.n++
	private := filepath.Join(c.dir, fmt.Sprintf("s%d.db", c.n))
	var d *diag.Diagnostic
	if s.spec.Kind == "csv" {
		d = buildCSV(ctx, private, key, file, data, s)
	} else {
		d = buildSQLite(ctx, c.dir, private, c.n, key, file, data, s, fail)
	}
	if d != nil {
		return "", d
	}
	if d := s.applyMask(file); d != nil {
		return "", d
	}
	if c.indexQueries > 0 {
		if err := indexColumns(ctx, private, s.tables, c.indexQueries); err != nil {
			return "", fail(CodeOpen, "check the temporary directory is writable and has space", "cannot index a private database: %v", err)
		}
	}
	c.built[k] = &builtSource{path: private, tables: cloneTables(s.tables), masked: s.masked, names: s.names}
	return private, nil
}

// cloneTables copies tables so that no run shares a slice another may
// change.
func cloneTables(ts []table) []table {
	out := make([]table, len(ts))
	for i, t := range ts {
		out[i] = table{Name: t.Name, Columns: append([]column(nil), t.Columns...)}
	}
	return out
}

// LoadCached is Load with the private databases taken from c (built there
// on first use). A nil c is Load.
func LoadCached(ctx context.Context, baseDir string, srcs map[string]plan.Source, c *Cache) (*DB, error) {
	return load(ctx, baseDir, srcs, c)
}
