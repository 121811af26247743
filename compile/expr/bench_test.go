package expr

import "testing"

// Lint runs once per expression of a flow; a 10,000-node flow must lint
// in a small multiple of its YAML parse time.
func BenchmarkCheck(b *testing.B) {
	for b.Loop() {
		Check("len(vars.items) > 0 and contains(input.week, 'W4') || nodes.pull.truncated", Cond, testScope)
	}
}

func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := Compile("sum(col(nodes.pull, 'gmv')) / rows(nodes.pull)", Metric); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	p, err := Compile("len(vars.items) > 0 and contains(input.week, 'W4') || nodes.pull.truncated", Cond)
	if err != nil {
		b.Fatal(err)
	}
	env := testEnv()
	for b.Loop() {
		if _, err := p.EvalBool(env); err != nil {
			b.Fatal(err)
		}
	}
}
