package eval

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/sources"
)

// SourceOracle computes SQL expectations over the flow's own sources, with
// the same loader, SQL guard and masking as the flow's db_query tools: the
// expected value is whatever the data says now, never a frozen number.
type SourceOracle struct {
	db   *sources.DB
	plan *plan.Plan
}

// IndexedOracleQuestions is how many SQL expectations make an evaluation
// give its oracle an indexed build of the sources (sources.NewIndexedCache)
// instead of sharing the cases' build: below it, scanning costs less than
// indexing.
const IndexedOracleQuestions = 64

// NewSourceOracle loads the plan's sources (paths relative to baseDir). A
// plan without sources gives an oracle that refuses every SQL expectation.
func NewSourceOracle(ctx context.Context, p *plan.Plan, baseDir string) (*SourceOracle, error) {
	return NewCachedSourceOracle(ctx, p, baseDir, nil)
}

// NewCachedSourceOracle is NewSourceOracle with the sources' databases
// taken from (or built into) cache, which the evaluation's runs share.
func NewCachedSourceOracle(ctx context.Context, p *plan.Plan, baseDir string, cache *sources.Cache) (*SourceOracle, error) {
	o := &SourceOracle{plan: p}
	if len(p.Sources) == 0 {
		return o, nil
	}
	db, err := sources.LoadCached(ctx, baseDir, p.Sources, cache)
	if err != nil {
		return nil, err
	}
	o.db = db
	return o, nil
}

// SourceHashes returns the content hashes of the loaded sources, by name
// (nil when the flow has none).
func (o *SourceOracle) SourceHashes() map[string]string {
	if o.db == nil {
		return nil
	}
	return o.db.SourceHashes()
}

// Close releases the loaded sources.
func (o *SourceOracle) Close() error {
	if o.db == nil {
		return nil
	}
	return o.db.Close()
}

// Expected runs the question's query. The result must be one column (a
// cell, or one value per row) of numbers; a masked column, a truncated
// result, a NULL or a text cell is an error, reported as the case's reason.
func (o *SourceOracle) Expected(ctx context.Context, q *suite.Question) Expected {
	e := Expected{SQL: q.Expect.SQL}
	src, err := suite.SourceFor(&q.Expect, o.plan)
	if err != nil {
		e.Err = err
		return e
	}
	if o.db == nil {
		e.Err = fmt.Errorf("the flow's sources are not loaded")
		return e
	}
	snap, err := o.db.Query(ctx, src, q.Expect.SQL, nil, 0)
	if err != nil {
		e.Err = err
		return e
	}
	if len(snap.Masked) > 0 {
		e.Err = fmt.Errorf("the query returns the masked column(s) %s of source %q; an expectation may not read masked data (%s)", strings.Join(snap.Masked, ", "), src, suite.CodeMasked)
		return e
	}
	if len(snap.Columns) != 1 {
		e.Err = fmt.Errorf("the query returns %d columns; select one (a cell, or one value per row)", len(snap.Columns))
		return e
	}
	if snap.Truncated {
		e.Err = fmt.Errorf("the query returns more than %d rows; aggregate it in SQL", snap.RowCap)
		return e
	}
	for i, row := range snap.Rows {
		switch v := row[0].(type) {
		case int64:
			e.Values = append(e.Values, float64(v))
		case float64:
			e.Values = append(e.Values, v)
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				e.Err = fmt.Errorf("row %d of column %q is the text %q, not a number", i, snap.Columns[0], v)
				return e
			}
			e.Values = append(e.Values, f)
		case nil:
			e.Err = fmt.Errorf("row %d of column %q is NULL; filter it out or use no_data: true", i, snap.Columns[0])
			return e
		default:
			e.Err = fmt.Errorf("row %d of column %q is not a number", i, snap.Columns[0])
			return e
		}
	}
	return e
}
