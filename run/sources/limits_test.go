package sources

import (
	"context"
	"testing"
	"time"
)

// TestRunawayQueryStopsAtQueryTimeoutUnderALongNodeDeadline: a query that
// never ends, sent under a node deadline of ten minutes, is stopped by the
// query's own timeout with E-SQL-TIMEOUT.
func TestRunawayQueryStopsAtQueryTimeoutUnderALongNodeDeadline(t *testing.T) {
	old := QueryTimeout
	QueryTimeout = 200 * time.Millisecond
	t.Cleanup(func() { QueryTimeout = old })
	db := loadSales(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	_, err := db.Query(ctx, "sales", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c", nil, 0)
	if codeOf(err) != CodeTimeout {
		t.Fatalf("got %v, want %s", err, CodeTimeout)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("stopped after %v", d)
	}
}

// TestHugeQueryResultsRefused: a model asking SQLite for one 200 MB
// string, or for many rows that add up past the cap, gets E-SQL-TOO-LARGE
// instead of the memory and disk to hold them.
func TestHugeQueryResultsRefused(t *testing.T) {
	db := loadSales(t, nil)
	_, err := db.Query(context.Background(), "sales", "SELECT printf('%.*c', 200000000, 'x') AS big", nil, 0)
	if codeOf(err) != CodeTooLarge {
		t.Fatalf("one huge value: got %v, want %s", err, CodeTooLarge)
	}
	old := MaxResultBytes
	MaxResultBytes = 4096
	t.Cleanup(func() { MaxResultBytes = old })
	_, err = db.Query(context.Background(), "sales",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT printf('%.*c', 100, 'x') AS v FROM c", nil, 1000)
	if codeOf(err) != CodeTooLarge {
		t.Fatalf("many rows: got %v, want %s", err, CodeTooLarge)
	}
	// Under the cap, the same query with fewer rows works.
	s, err := db.Query(context.Background(), "sales",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT printf('%.*c', 100, 'x') AS v FROM c", nil, 1000)
	if err != nil || len(s.Rows) != 10 {
		t.Fatalf("small result: %v", err)
	}
}

// TestQueryTimeoutStartsWithTheConnection: a quick query that waited for
// the source's connection longer than a query may run (behind a slow one)
// still runs: its timeout counts from when it has the connection.
func TestQueryTimeoutStartsWithTheConnection(t *testing.T) {
	old := QueryTimeout
	QueryTimeout = 100 * time.Millisecond
	t.Cleanup(func() { QueryTimeout = old })
	db := loadSales(t, nil)
	s := db.sources["sales"]
	s.mu.Lock() // a slow query holds the connection
	done := make(chan error, 1)
	go func() {
		_, err := db.Query(context.Background(), "sales", "SELECT COUNT(*) AS n FROM sales", nil, 0)
		done <- err
	}()
	time.Sleep(3 * QueryTimeout)
	s.mu.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("a quick query that waited for the connection failed: %v", err)
	}
}
