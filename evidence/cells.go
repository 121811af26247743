package evidence

import (
	"encoding/hex"
	"fmt"
	"math"
	"time"
)

// Cell converts a value scanned from a SQL driver into a snapshot value,
// so that every snapshot, whichever query made it, holds only int64,
// float64, string or nil. BLOBs become their lower-case hex digits (text),
// booleans 1 or 0, time values (from DATE-typed columns) their RFC 3339
// text in UTC, anything else its fmt.Sprint text. It reports false for an
// infinite or NaN number, which canonical JSON cannot hold; the caller
// words the error for its own context.
func Cell(v any) (any, bool) {
	switch x := v.(type) {
	case nil, int64, string:
		return x, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		return x, true
	case []byte:
		return hex.EncodeToString(x), true
	case bool:
		if x {
			return int64(1), true
		}
		return int64(0), true
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), true
	}
	return fmt.Sprint(v), true
}

// ColumnTypes gives each of the n columns of rows the widest storage class
// among its non-NULL values (INTEGER < REAL < TEXT; NULL when all are
// NULL), as Snapshot.Types records it. Integers in a REAL column are
// rewritten in place as floats so that the column decodes back to one Go
// type.
func ColumnTypes(rows [][]any, n int) []string {
	rank := map[string]int{TypeNull: 0, TypeInteger: 1, TypeReal: 2, TypeText: 3}
	types := make([]string, n)
	for j := range types {
		t := TypeNull
		for _, r := range rows {
			var k string
			switch r[j].(type) {
			case nil:
				continue
			case int64:
				k = TypeInteger
			case float64:
				k = TypeReal
			default:
				k = TypeText
			}
			if rank[k] > rank[t] {
				t = k
			}
		}
		types[j] = t
		if t == TypeReal {
			for _, r := range rows {
				if i, ok := r[j].(int64); ok {
					r[j] = float64(i)
				}
			}
		}
	}
	return types
}
