// Package sources turns a flow's declared data (CSV files and SQLite
// databases) into read-only SQLite tables and answers db_query__<source>
// tool calls with evidence snapshots.
//
// Every source gets a private database file in a temporary directory,
// built once at load time and then reopened read-only (mode=ro,
// immutable=1, PRAGMA query_only) with an authorizer that allows nothing
// but reading. A query therefore passes three walls: the SQL guard
// (package sqlguard), the authorizer, and the read-only connection; any
// one of them alone refuses a write. Sources are isolated from each other:
// the db_query tool of one source cannot read another source's table,
// which keeps per-tool permissions meaningful.
//
// Where it fits: docs/architecture.md#running.
package sources

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	sqlite "modernc.org/sqlite"
)

// DB holds every loaded source.
type DB struct {
	dir     string
	sources map[string]*source
	keys    []string // sorted
}

// table describes one table a source exposes.
type table struct {
	Name    string
	Columns []column
}

type column struct {
	Name   string
	Type   string // INTEGER|REAL|TEXT|BLOB|NUMERIC
	Masked bool
}

// source is one loaded source and its read-only connection. Queries on one
// source are serialised by mu, which also guards the authorizer's record of
// what the statement being prepared reads.
type source struct {
	key    string
	spec   plan.Source
	hash   string
	tables []table
	masked map[string]map[string]bool // lower(table) → lower(column)
	names  map[string]bool            // lower(column) of every masked column

	db   *sql.DB
	conn *sql.Conn

	mu        sync.Mutex
	recording bool
	reads     []read
}

// read is one column a statement reads, as SQLite's authorizer reports it.
type read struct{ table, column string }

// Load reads every source (paths relative to baseDir) into its own
// read-only SQLite database. All problems are collected and returned
// together as a *LoadError.
func Load(ctx context.Context, baseDir string, srcs map[string]plan.Source) (*DB, error) {
	return load(ctx, baseDir, srcs, nil)
}

// load is Load and LoadCached: with a cache the private databases live in
// it (and outlive db); without one db gets a temporary directory of its own.
func load(ctx context.Context, baseDir string, srcs map[string]plan.Source, cache *Cache) (*DB, error) {
	db := &DB{sources: map[string]*source{}}
	if cache == nil {
		dir, err := os.MkdirTemp("", "agentlab-sources-")
		if err != nil {
			return nil, fmt.Errorf("sources: %w", err)
		}
		db.dir = dir
	}
	for k := range srcs {
		db.keys = append(db.keys, k)
	}
	sort.Strings(db.keys)
	var diags diag.List
	for i, key := range db.keys {
		spec := srcs[key]
		file := spec.Path
		if !filepath.IsAbs(file) && baseDir != "" {
			file = filepath.Join(baseDir, file)
		}
		s, d := loadOne(ctx, db.dir, i, key, file, spec, cache)
		if d != nil {
			diags = append(diags, *d)
			continue
		}
		db.sources[key] = s
	}
	if len(diags) > 0 {
		db.Close()
		return nil, &LoadError{Diagnostics: diags.Sorted()}
	}
	return db, nil
}

func loadOne(ctx context.Context, dir string, i int, key, file string, spec plan.Source, cache *Cache) (*source, *diag.Diagnostic) {
	fail := func(code, fix, format string, args ...any) *diag.Diagnostic {
		// A problem with the file as a whole is placed at 1:1 (0:0 is no
		// position); the caller may move it to the flow's sources: entry
		// when that is what must change (see DeclaredField).
		return &diag.Diagnostic{File: file, Line: 1, Col: 1, Severity: diag.Error, Code: code,
			Message: fmt.Sprintf("source %q: ", key) + fmt.Sprintf(format, args...), Fix: fix}
	}
	if key == "" || strings.HasPrefix(strings.ToLower(key), "sqlite_") {
		return nil, fail(CodeName, "rename the source; names starting with sqlite_ are reserved by SQLite", "cannot be used as a table name")
	}
	if spec.Kind != "csv" && spec.Kind != "sqlite" {
		return nil, fail(CodeKind, "use kind: csv or kind: sqlite", "kind %q is not supported", spec.Kind)
	}
	data, err := fsutil.SourceCap.ReadFile(file)
	var big *fsutil.TooLargeError
	var odd *fsutil.NotRegularError
	switch {
	case errors.As(err, &big):
		return nil, fail(CodeTooBig, "filter or aggregate the data before the run; "+fsutil.SourceCap.Hint(),
			"the file is %d bytes, over the %s cap of %d bytes", big.Size, fsutil.SourceCap.Key, big.Limit)
	case errors.As(err, &odd):
		return nil, fail(CodeOpen, "name a regular data file; devices, FIFOs and sockets are never read", "the path is a %s, not a regular file", odd.Kind)
	case err != nil:
		return nil, fail(CodeOpen, "check the path; it is relative to the flow file's directory", "cannot read the file: %v", err)
	}
	s := &source{key: key, spec: spec, hash: hashid.Sum(data).String()}
	var private string
	if cache != nil {
		var d *diag.Diagnostic
		if private, d = cache.build(ctx, key, file, data, s, fail); d != nil {
			return nil, d
		}
	} else {
		private = filepath.Join(dir, fmt.Sprintf("s%d.db", i))
		var d *diag.Diagnostic
		if spec.Kind == "csv" {
			d = buildCSV(ctx, private, key, file, data, s)
		} else {
			d = buildSQLite(ctx, dir, private, i, key, file, data, s, fail)
		}
		if d != nil {
			return nil, d
		}
		if d := s.applyMask(file); d != nil {
			return nil, d
		}
	}
	if err := s.open(ctx, private); err != nil {
		return nil, fail(CodeSQLite, "report this as a bug; the private copy of the source could not be reopened", "%v", err)
	}
	return s, nil
}

// writable opens a private database for building.
func writable(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+uriPath(path)+"?_pragma=journal_mode(off)&_pragma=synchronous(off)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// open reopens the built database read-only and installs the authorizer.
func (s *source) open(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+uriPath(path)+"?mode=ro&immutable=1&_pragma=query_only(1)")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return err
	}
	err = conn.Raw(func(dc any) error {
		reg, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver has no authorizer")
		}
		return reg.RegisterAuthorizer(s.authorize)
	})
	if err != nil {
		conn.Close()
		db.Close()
		return err
	}
	// SQLITE_LIMIT_LENGTH (0): no string, blob or row a query builds may
	// be longer than the result cap.
	if _, err := sqlite.Limit(conn, 0, int(min(MaxResultBytes, 1<<30))); err != nil {
		conn.Close()
		db.Close()
		return err
	}
	s.db, s.conn = db, conn
	return nil
}

// uriPath escapes a file path for a file: URI.
func uriPath(p string) string {
	u := url.URL{Path: filepath.ToSlash(p)}
	return u.EscapedPath()
}

// SourceHashes returns the BLAKE3 id of each source file's bytes, as read
// at load time; queries run on exactly those bytes.
func (db *DB) SourceHashes() map[string]string {
	out := make(map[string]string, len(db.sources))
	for k, s := range db.sources {
		out[k] = s.hash
	}
	return out
}

// Close releases every connection and removes the private copies.
func (db *DB) Close() error {
	var first error
	for _, s := range db.sources {
		if s.conn != nil {
			if err := s.conn.Close(); err != nil && first == nil {
				first = err
			}
		}
		if s.db != nil {
			if err := s.db.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	db.sources = map[string]*source{}
	if db.dir != "" {
		if err := os.RemoveAll(db.dir); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Validate loads the sources only to report their problems (for lint and
// compile), then releases everything. It returns nil when all load.
func Validate(ctx context.Context, baseDir string, srcs map[string]plan.Source) diag.List {
	db, err := Load(ctx, baseDir, srcs)
	if err == nil {
		db.Close()
		return nil
	}
	if le, ok := err.(*LoadError); ok {
		return le.Diagnostics
	}
	return diag.List{{Severity: diag.Error, Code: CodeOpen, Message: err.Error(), Fix: "check the temporary directory is writable"}}
}
