package presets

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the output:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

func TestDiffGolden(t *testing.T) {
	for _, pair := range [][2]string{{"standard", "ptc"}, {"standard", "minimal"}, {"standard", "creator"}, {"ptc", "ptc"}} {
		a, _ := Builtin(pair[0])
		b, _ := Builtin(pair[1])
		var buf bytes.Buffer
		if err := WriteDiff(&buf, Diff(a.Rows, b.Rows)); err != nil {
			t.Fatal(err)
		}
		golden(t, "diff_"+pair[0]+"_"+pair[1]+".golden", buf.Bytes())
	}
}

func row(id string) plan.PresetRow { return plan.PresetRow{ID: id, Use: UseTool} }

func TestDiffKinds(t *testing.T) {
	a := []plan.PresetRow{row("a"), row("b"), row("c"), row("d")}
	b := []plan.PresetRow{row("b"), row("c"), row("a"), row("e")}
	b[1].Disabled = true
	type brief struct{ ID, Change string }
	var got []brief
	for _, c := range Diff(a, b) {
		got = append(got, brief{c.ID, c.Change})
	}
	want := []brief{{"c", "changed"}, {"a", "moved"}, {"e", "added"}, {"d", "removed"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if d := Diff(a, a); len(d) != 0 {
		t.Fatalf("diff of a preset with itself: %v", d)
	}
}
