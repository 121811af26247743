package evidence

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/hashid"
)

func sample() *Snapshot {
	return &Snapshot{
		ID: "Q1", Node: "pull", Tool: "db_query__sales", Source: "sales",
		SQL:     "SELECT region, SUM(amount) AS gmv, COUNT(*) AS n, customer FROM sales WHERE week = :week GROUP BY region",
		Params:  map[string]any{"week": "2026-W47", "limit": int64(3)},
		Columns: []string{"region", "gmv", "n", "customer"},
		Types:   []string{TypeText, TypeReal, TypeInteger, TypeText},
		Rows: [][]any{
			{"north", 1200.5, int64(3), MaskedValue},
			{"south", float64(7), int64(1), MaskedValue},
			{nil, nil, int64(0), MaskedValue},
		},
		Masked: []string{"customer"}, RowCap: 1000,
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	s := sample()
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["region","gmv","n","customer"],"id":"Q1","masked":["customer"],"node":"pull","params":{"limit":3,"week":"2026-W47"},"row_cap":1000,"rows":[["north",1200.5,3,"***"],["south",7,1,"***"],[null,null,0,"***"]],"source":"sales","sql":"SELECT region, SUM(amount) AS gmv, COUNT(*) AS n, customer FROM sales WHERE week = :week GROUP BY region","tool":"db_query__sales","truncated":false,"types":["TEXT","REAL","INTEGER","TEXT"]}`
	if string(b) != want {
		t.Fatalf("canonical\n got %s\nwant %s", b, want)
	}
	back, err := DecodeSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("round trip\n got %#v\nwant %#v", back, s)
	}
	b2, _ := back.Canonical()
	if string(b2) != string(b) {
		t.Fatal("re-encoding changed the bytes")
	}
}

func TestSnapshotObject(t *testing.T) {
	o := sample().Object()
	if o["snapshot"] != "Q1" || o["node"] != "pull" || o["truncated"] != false {
		t.Fatalf("header fields: %v", o)
	}
	rows := o["rows"].([]any)
	r0 := rows[0].(map[string]any)
	if r0["region"] != "north" || r0["gmv"] != 1200.5 || r0["customer"] != MaskedValue {
		t.Fatalf("row 0: %v", r0)
	}
	if cols := o["columns"].([]any); len(cols) != 4 || cols[1] != "gmv" {
		t.Fatalf("columns: %v", cols)
	}
}

func TestSnapshotValidate(t *testing.T) {
	cases := map[string]func(s *Snapshot){
		"twice":   func(s *Snapshot) { s.Columns[1] = "region" },
		"types":   func(s *Snapshot) { s.Types = s.Types[:2] },
		"unknown": func(s *Snapshot) { s.Types[0] = "BLOB" },
		"width":   func(s *Snapshot) { s.Rows[0] = s.Rows[0][:3] },
		"nan":     func(s *Snapshot) { s.Rows[0][1] = math.NaN() },
		"inf":     func(s *Snapshot) { s.Rows[0][1] = math.Inf(1) },
		"kind":    func(s *Snapshot) { s.Rows[0][1] = []byte("x") },
	}
	for name, mutate := range cases {
		s := sample()
		mutate(s)
		if _, err := s.Canonical(); err == nil {
			t.Errorf("%s: Canonical accepted an invalid snapshot", name)
		}
	}
	if _, err := DecodeSnapshot([]byte(`{"id":"Q1","columns":["a"],"types":["TEXT"],"rows":[],"extra":1}`)); err == nil {
		t.Error("DecodeSnapshot accepted an unknown field")
	}
}

func TestLedgerOrder(t *testing.T) {
	l := NewLedger()
	got := []string{l.AddQuery("b3:a"), l.AddKnowledge("b3:b"), l.AddQuery("b3:c"), l.AddKnowledge("b3:d")}
	if want := []string{"Q1", "K1", "Q2", "K2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	e, ok := l.Lookup("Q2")
	if !ok || e.Artifact != "b3:c" || e.Kind != KindQuery {
		t.Fatalf("Lookup(Q2) = %v, %v", e, ok)
	}
	if _, ok := l.Lookup("Q9"); ok {
		t.Fatal("Lookup found a missing id")
	}
	r, err := RestoreLedger(l.Entries())
	if err != nil {
		t.Fatal(err)
	}
	if id := r.AddQuery("b3:e"); id != "Q3" {
		t.Fatalf("restored ledger continued with %s, want Q3", id)
	}
	bad := l.Entries()
	bad[0], bad[2] = bad[2], bad[0]
	if _, err := RestoreLedger(bad); err == nil {
		t.Fatal("RestoreLedger accepted entries out of order")
	}
}

// TestLedgerConcurrent registers snapshots from many goroutines and checks
// that every stored artifact carries the number it was registered under.
func TestLedgerConcurrent(t *testing.T) {
	l := NewLedger()
	store := sync.Map{}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := sample()
			s.Node = fmt.Sprintf("n%d", i)
			_, err := l.AddSnapshot(s, func(b []byte) (string, error) {
				id := hashid.Sum(b).String()
				store.Store(id, b)
				return id, nil
			})
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	for i, e := range l.Entries() {
		if e.ID != fmt.Sprintf("Q%d", i+1) {
			t.Fatalf("entry %d has id %s", i, e.ID)
		}
		b, _ := store.Load(e.Artifact)
		s, err := DecodeSnapshot(b.([]byte))
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != e.ID {
			t.Fatalf("artifact of %s holds snapshot %s", e.ID, s.ID)
		}
	}
	if _, err := l.AddSnapshot(sample(), func([]byte) (string, error) { return "", fmt.Errorf("disk full") }); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("put error not returned: %v", err)
	}
	if id := l.AddQuery("b3:x"); id != "Q51" {
		t.Fatalf("a failed AddSnapshot used a number: next is %s", id)
	}
}
