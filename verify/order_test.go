package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestRunDirCheckOrder: a run directory checks its events while its
// artifacts hash, yet its checks come out in the fixed order of the check
// names, and the same result whatever the number of workers, for an
// intact run and for one whose artifacts and seal fail.
func TestRunDirCheckOrder(t *testing.T) {
	r := fixtureRun(t, evfixture.Options{Contract: true, PostSeal: true})
	names := func(cs []Check) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	want := []string{CheckBundle, CheckArtifacts, CheckEvents, CheckSeal, CheckExpect, CheckPlan, CheckLedger, CheckMetrics, CheckSignature, CheckPostSeal}
	verifyAll := func(what string, wantOK bool) {
		t.Helper()
		var first *Result
		for _, w := range []int{1, 2, 4, 1, 4} {
			res, err := Verify(r.Dir, Options{Expect: r.Seal, Workers: w})
			if err != nil {
				t.Fatalf("%s, %d workers: %v", what, w, err)
			}
			if got := names(res.Checks); !reflect.DeepEqual(got, want) || res.OK != wantOK {
				t.Fatalf("%s, %d workers: ok %v, checks %v, want ok %v, checks %v", what, w, res.OK, got, wantOK, want)
			}
			if first == nil {
				first = res
			} else if !reflect.DeepEqual(res, first) {
				t.Fatalf("%s: %d workers give\n%+v\nnot\n%+v", what, w, res, first)
			}
		}
	}
	verifyAll("intact", true)

	// remove every artifact file but the plan: artifacts, seal, ledger and
	// metrics fail, the events still verify
	var removed int
	_ = filepath.Walk(DefaultArtifactsDir(r.Dir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && "b3:"+filepath.Base(filepath.Dir(p))+filepath.Base(p) != r.Plan {
			if os.Remove(p) == nil {
				removed++
			}
		}
		return nil
	})
	if removed == 0 {
		t.Fatal("no artifact removed")
	}
	verifyAll("artifacts removed", false)
	res, _ := Verify(r.Dir, Options{Expect: r.Seal})
	f := failing(res.Checks)
	for _, c := range []string{CheckArtifacts, CheckSeal, CheckLedger, CheckMetrics} {
		if _, ok := f[c]; !ok {
			t.Errorf("artifacts removed: %s does not fail: %+v", c, res.Checks)
		}
	}
	if _, ok := f[CheckEvents]; ok {
		t.Errorf("artifacts removed: the events fail: %+v", res.Checks)
	}
}
