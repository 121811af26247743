package tmpl

import "testing"

func BenchmarkCheck(b *testing.B) {
	for b.Loop() {
		Check("Write the weekly brief for {{ input.week }} using {{ nodes.n1.text | default('') }}.", testScope)
	}
}

func BenchmarkRender(b *testing.B) {
	t, _ := Parse("Write the weekly brief for {{ input.week }}: {{ vars.items | join(' / ') }}.")
	env := renderEnv()
	for b.Loop() {
		if _, err := t.Render(env); err != nil {
			b.Fatal(err)
		}
	}
}
