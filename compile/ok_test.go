package compile

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

var update = flag.Bool("update", false, "rewrite the golden plans under testdata/golden")

// TestOKCorpus lints every file under testdata/ok: none may have any
// diagnostic at all (not even a warning).
func TestOKCorpus(t *testing.T) {
	l, err := LintPaths([]string{"testdata/ok"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l {
		t.Errorf("%v", d)
	}
	files := 0
	filepath.WalkDir("testdata/ok", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && KindOf(p, nil) != KindUnknown {
			files++
		}
		return nil
	})
	if files < 5 {
		t.Fatalf("the ok corpus has only %d files", files)
	}
}

// TestGoldenPlans compiles every flow of the ok corpus and compares its
// canonical plan with testdata/golden/<name>.plan.json (go test -update
// rewrites them). It also checks that the returned plan equals what
// plan.Decode reads back, which the engine relies on.
func TestGoldenPlans(t *testing.T) {
	flows, _ := filepath.Glob("testdata/ok/*.flow.yml")
	if len(flows) == 0 {
		t.Fatal("no flows in testdata/ok")
	}
	for _, f := range flows {
		name := strings.TrimSuffix(filepath.Base(f), ".flow.yml")
		t.Run(name, func(t *testing.T) {
			p, l := CompileFile(f, Options{})
			if p == nil {
				t.Fatalf("compile failed:\n%s", dump(l))
			}
			got, err := p.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			back, _, err := plan.Decode(got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, back) {
				t.Errorf("compiled plan differs from its decoded canonical form")
			}
			var pretty bytes.Buffer
			json.Indent(&pretty, got, "", "  ")
			pretty.WriteByte('\n')
			golden := filepath.Join("testdata", "golden", name+".plan.json")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(want, pretty.Bytes()) {
				t.Errorf("plan differs from %s (run go test -update after checking the change):\n%s", golden, pretty.String())
			}
		})
	}
}
