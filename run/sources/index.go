package sources

import (
	"context"
	"fmt"

	"github.com/agentlab/agentlab/run/sqlguard"
)

// NewIndexedCache is NewCache for a reader that will send about queries
// queries (an evaluation's expectations, one per question): a table gets
// an index on each of its columns when queries outnumber its columns four
// times over, so that a query selecting rows by a value looks them up
// instead of scanning the table once per question. Indexing costs about
// as much per column as a few scans. Results are the same rows; like any
// query without ORDER BY, a range condition may list them in another
// order.
func NewIndexedCache(queries int) *Cache {
	c := NewCache()
	c.indexQueries = queries
	return c
}

// indexPerColumn is how many queries per column make indexing pay.
const indexPerColumn = 4

// indexColumns creates one index per column of every table of the
// private database at path that queries make worth it.
func indexColumns(ctx context.Context, path string, ts []table, queries int) error {
	w, err := writable(path)
	if err != nil {
		return err
	}
	defer w.Close()
	n := 0
	for _, t := range ts {
		if queries < indexPerColumn*len(t.Columns) {
			continue
		}
		for _, c := range t.Columns {
			n++
			q := fmt.Sprintf("CREATE INDEX %s ON %s (%s)", sqlguard.QuoteIdent(fmt.Sprintf("agentlab index %d", n)),
				sqlguard.QuoteIdent(t.Name), sqlguard.QuoteIdent(c.Name))
			if _, err := w.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	return nil
}
