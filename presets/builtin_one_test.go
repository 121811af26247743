package presets

import (
	"reflect"
	"testing"
)

// TestBuiltinParsesOneAgreesWithAll: Builtin (the generated table) gives
// what the full load of the embedded files gives, for every built-in, and a name
// that reaches for another file (a path, an extension, a traversal) is no
// built-in.
func TestBuiltinParsesOneAgreesWithAll(t *testing.T) {
	names := Builtins()
	if len(names) == 0 {
		t.Fatal("no built-in presets")
	}
	for _, n := range names {
		got, ok := Builtin(n)
		if !ok {
			t.Fatalf("Builtin(%q) not found", n)
		}
		want := builtinByKey[n]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Builtin(%q) = %+v, full load %+v", n, got, want)
		}
	}
	for _, hostile := range []string{"", ".", "..", "standard.yml", "builtin/standard", "../builtin/standard", "./standard", "standard/", `..\\standard`, "STANDARD", "standard\x00"} {
		if _, ok := Builtin(hostile); ok {
			t.Errorf("Builtin(%q) found a preset", hostile)
		}
	}
}
