package verify

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestEvidenceEventsSameDoc: the renderer loads the same evidence, and
// renders the same report, from render.ReportEvents as from every event, for
// the fixture runs (metrics, a report, a degraded contract, an event after
// the seal) and a large run whose node.finished events it mostly leaves
// out.
func TestEvidenceEventsSameDoc(t *testing.T) {
	type run struct {
		name string
		dir  string
	}
	var runs []run
	for _, o := range []struct {
		name string
		opt  evfixture.Options
	}{
		{"plain", evfixture.Options{}},
		{"contract", evfixture.Options{Contract: true}},
		{"post-seal", evfixture.Options{PostSeal: true, Contract: true}},
	} {
		runs = append(runs, run{o.name, fixtureRun(t, o.opt).Dir})
	}
	l, err := evfixture.BuildLarge(t.TempDir(), evfixture.Large{Events: 2000, Artifacts: 4, ArtifactBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	runs = append(runs, run{"large", l.Dir})
	t.Run("contract without escapes", func(t *testing.T) {
		// two output contracts, one formal and one degraded, with reasons
		// free of backslashes (the fixture's reasons quote, so they hold one)
		mk := func(seq int64, typ, node, data string) chain.Event {
			return chain.Event{Seq: seq, Type: typ, Node: node, Data: []byte(data)}
		}
		evs := []chain.Event{
			mk(1, chain.TypeRunStarted, "", `{"flow":"f","kind":"exploratory","plan":"b3:00"}`),
			mk(2, chain.TypeNodeFinished, "a", `{"output":1}`),
			mk(3, chain.TypeNodeFinished, "out1", `{"contract":{"tier":"formal"},"output":{}}`),
			mk(4, chain.TypeNodeFinished, "out2", `{"contract":{"issuance":{"reasons":["required metric orders is missing"]},"tier":"degraded"},"output":{}}`),
			mk(5, chain.TypeRunFinished, "", `{"status":"succeeded","tier":"degraded"}`),
		}
		get := func(id hashid.ID) ([]byte, error) { return nil, errors.New("no artifacts here") }
		all, err := render.LoadSealed("r", "", evs, get)
		if err != nil {
			t.Fatal(err)
		}
		if len(all.Meta.TierReasons) == 0 {
			t.Fatalf("the case does not exercise the contract verdicts: %+v", all.Meta)
		}
		kept := render.ReportEvents(evs)
		if len(kept) != len(evs)-1 {
			t.Errorf("kept %d of %d events, want every one but event 2", len(kept), len(evs))
		}
		if got := render.ReportEvents(append(evs, mk(6, "human.decided", "g", `{}`))); !reflect.DeepEqual(got, kept) {
			t.Errorf("an event after the seal is kept: %+v", got)
		}
		some, err := render.LoadSealed("r", "", kept, get)
		if err != nil || !reflect.DeepEqual(all, some) {
			t.Fatalf("the evidence differs (%v):\nall events: %+v\nkept:       %+v", err, all.Meta, some.Meta)
		}
	})
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			rd, err := readRunDir(r.dir, "", DefaultMaxBytes, 2)
			if err != nil {
				t.Fatal(err)
			}
			get := func(id hashid.ID) ([]byte, error) { return getFile(rd.artifacts, id, 1<<30) }
			kept := render.ReportEvents(rd.events)
			finished, keptFinished := 0, 0
			for _, e := range rd.events[:chain.SealedPrefix(rd.events)+1] {
				if e.Type == chain.TypeNodeFinished {
					finished++
				}
			}
			for _, e := range kept {
				if e.Type == chain.TypeNodeFinished {
					keptFinished++
				}
			}
			if r.name == "large" && keptFinished*2 > finished {
				t.Errorf("kept %d of %d node.finished events; the large run references no report keys", keptFinished, finished)
			}
			all, err := render.LoadSealed(rd.rec.ID, rd.rec.Seal, rd.events, get)
			if err != nil {
				t.Fatal(err)
			}
			some, err := render.LoadSealed(rd.rec.ID, rd.rec.Seal, kept, get)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(all, some) {
				t.Fatalf("the evidence differs:\nall events: %+v\nkept:       %+v", all, some)
			}
			a, errA := render.HTML(all)
			s, errS := render.HTML(some)
			if errA != nil || errS != nil || !bytes.Equal(a, s) {
				t.Fatalf("the report differs (%v, %v)", errA, errS)
			}
		})
	}
}
