// Package evidence holds the formats that tie a report's numbers to data:
// the snapshot of one query result and the ledger that numbers snapshots
// (Q1, Q2, …) and knowledge hits (K1, K2, …) within a run. The run engine
// writes them, report rendering reads them, and the verifier re-checks
// them, so this package depends on nothing but the shared leaf packages
// and never on run/.
//
// Where it fits: docs/architecture.md#evidence-and-issuance.
package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/agentlab/agentlab/canon"
)

// Column types of a snapshot: the storage class of the column's values.
const (
	TypeInteger = "INTEGER"
	TypeReal    = "REAL"
	TypeText    = "TEXT"
	TypeNull    = "NULL"
)

// MaskedValue replaces every value of a masked column in a snapshot.
const MaskedValue = "***"

// Snapshot is the frozen result of one query: what was asked, of which
// source, and exactly what came back. It is stored as canonical JSON in
// the artifact store; its ID is the number the ledger gave it in the run.
//
// Row values are int64, float64, string or nil. Types holds one of the
// Type… constants per column: the widest storage class among the column's
// non-NULL values (INTEGER < REAL < TEXT), NULL when all are NULL.
type Snapshot struct {
	ID        string         `json:"id"`
	Node      string         `json:"node"`
	Tool      string         `json:"tool"`
	Source    string         `json:"source"`
	SQL       string         `json:"sql"`
	Params    map[string]any `json:"params,omitempty"`
	Columns   []string       `json:"columns"`
	Types     []string       `json:"types"`
	Rows      [][]any        `json:"rows"`
	Masked    []string       `json:"masked,omitempty"`
	Truncated bool           `json:"truncated"`
	RowCap    int            `json:"row_cap"`
}

// Object is the node output object that expressions and templates see as
// nodes.<id>: {"node","snapshot","columns","rows":[{col: value}…],"truncated"}.
// Rows become objects keyed by column name, which is why sources refuse
// results with two columns of the same name.
func (s *Snapshot) Object() map[string]any {
	rows := make([]any, len(s.Rows))
	for i, r := range s.Rows {
		m := make(map[string]any, len(s.Columns))
		for j, c := range s.Columns {
			if j < len(r) {
				m[c] = r[j]
			} else {
				m[c] = nil
			}
		}
		rows[i] = m
	}
	cols := make([]any, len(s.Columns))
	for i, c := range s.Columns {
		cols[i] = c
	}
	return map[string]any{
		"node":      s.Node,
		"snapshot":  s.ID,
		"columns":   cols,
		"rows":      rows,
		"truncated": s.Truncated,
	}
}

// Canonical returns the bytes that are stored and hashed.
func (s *Snapshot) Canonical() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return canon.Marshal(s)
}

// Validate checks the invariants every reader relies on: one type per
// column, rows as wide as the column list, values of the allowed kinds,
// finite numbers, distinct column names.
func (s *Snapshot) Validate() error {
	if len(s.Types) != len(s.Columns) {
		return fmt.Errorf("snapshot %s: %d columns but %d types", s.ID, len(s.Columns), len(s.Types))
	}
	seen := make(map[string]bool, len(s.Columns))
	for _, c := range s.Columns {
		if seen[c] {
			return fmt.Errorf("snapshot %s: column %q appears twice", s.ID, c)
		}
		seen[c] = true
	}
	for j, t := range s.Types {
		switch t {
		case TypeInteger, TypeReal, TypeText, TypeNull:
		default:
			return fmt.Errorf("snapshot %s: column %q has unknown type %q", s.ID, s.Columns[j], t)
		}
	}
	for i, r := range s.Rows {
		if len(r) != len(s.Columns) {
			return fmt.Errorf("snapshot %s: row %d has %d values for %d columns", s.ID, i, len(r), len(s.Columns))
		}
		for j, v := range r {
			switch x := v.(type) {
			case nil, string, int64:
			case float64:
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("snapshot %s: row %d column %q is not a finite number", s.ID, i, s.Columns[j])
				}
			default:
				return fmt.Errorf("snapshot %s: row %d column %q has a %T value", s.ID, i, s.Columns[j], v)
			}
		}
	}
	return nil
}

// DecodeSnapshot reads a stored snapshot. Numbers come back as int64 in
// INTEGER columns and as float64 in REAL columns; in a TEXT column that
// mixes storage classes a number without fraction or exponent is an int64.
// Decoding the canonical bytes and encoding again gives the same bytes.
func DecodeSnapshot(b []byte) (*Snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if len(s.Types) != len(s.Columns) {
		return nil, fmt.Errorf("snapshot %s: %d columns but %d types", s.ID, len(s.Columns), len(s.Types))
	}
	for _, r := range s.Rows {
		for j, v := range r {
			n, ok := v.(json.Number)
			if !ok || j >= len(s.Types) {
				continue
			}
			x, err := number(n, s.Types[j])
			if err != nil {
				return nil, fmt.Errorf("snapshot %s: %w", s.ID, err)
			}
			r[j] = x
		}
	}
	for k, v := range s.Params {
		if n, ok := v.(json.Number); ok {
			x, err := number(n, TypeText)
			if err != nil {
				return nil, fmt.Errorf("snapshot %s: param %s: %w", s.ID, k, err)
			}
			s.Params[k] = x
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func number(n json.Number, typ string) (any, error) {
	if typ != TypeReal {
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
	}
	f, err := n.Float64()
	if err != nil {
		return nil, fmt.Errorf("number %s: %w", n, err)
	}
	return f, nil
}
