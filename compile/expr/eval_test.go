package expr

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func testEnv() map[string]any {
	return map[string]any{
		"input": map[string]any{"week": "2026-W47", "n": json.Number("12")},
		"vars": map[string]any{
			"gate":  "ok",
			"items": []any{1, 2.5, "x", nil},
			"nums":  []any{3, 1, 2},
			"m":     map[string]any{"b": 2, "a": 1},
			"typed": map[string]int{"z": 26},
			"strs":  []string{"p", "q"},
			"none":  nil,
			"big":   9007199254740993,
		},
		"nodes": map[string]any{
			"draft": map[string]any{"text": "Hello"},
			"pull":  pullSnapshot(),
		},
	}
}

func pullSnapshot() map[string]any {
	return map[string]any{
		"node": "pull", "snapshot": "Q1", "columns": []any{"region", "gmv", "orders"}, "truncated": false,
		"rows": []any{
			map[string]any{"region": "north", "gmv": 100, "orders": 4},
			map[string]any{"region": "south", "gmv": 50.5, "orders": nil},
			map[string]any{"region": "east", "gmv": 10, "orders": 1},
		},
	}
}

func evalT(t *testing.T, src string, env map[string]any) (any, error) {
	t.Helper()
	p, err := Compile(src, Transform)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return p.Eval(env)
}

func TestEval(t *testing.T) {
	cases := []struct {
		src  string
		want any
	}{
		// literals and names
		{"nil", nil}, {"true", true}, {"42", 42}, {"1.5", 1.5}, {"'a\\'b'", "a'b"}, {`"x"`, "x"},
		{"[1, 'a']", []any{1, "a"}}, {"{'k': 1, v: 2}", map[string]any{"k": 1, "v": 2}},
		{"input.week", "2026-W47"}, {"input['week']", "2026-W47"}, {"vars.missing", nil},
		{"nodes.draft.text", "Hello"}, {"nodes.pull.rows[0].region", "north"}, {"nodes.pull.rows[-1].gmv", 10},
		{"vars.typed.z", 26}, {"vars.strs[1]", "q"}, {"input.week[0]", "2"}, {"vars.m[vars.strs[0]]", nil},
		// arithmetic
		{"1 + 2", 3}, {"1 + 2.5", 3.5}, {"5 - 7", -2}, {"3 * 4", 12}, {"7 / 2", 3.5}, {"6 / 3", 2.0},
		{"7 % 3", 1}, {"-7 % 3", -1}, {"7.5 % 2", 1.5}, {"2 ** 10", 1024.0}, {"2 ^ 3", 8.0}, {"-(3)", -3}, {"+4", 4},
		{"input.n + 1", 13}, {"vars.big + 0", 9007199254740993},
		{"9223372036854775807 + 1", 9223372036854775808.0}, {"9223372036854775807 * 2", 18446744073709551614.0},
		{"'a' + 'b'", "ab"}, {"[1] + [2, 3]", []any{1, 2, 3}},
		// comparison and logic
		{"1 == 1.0", true}, {"1 != 2", true}, {"'a' < 'b'", true}, {"2 > 1.5", true}, {"2 <= 2", true},
		{"3 >= 4", false}, {"1 < 2 < 3", true}, {"3 > 2 > 2", false}, {"[1, 'a'] == [1, 'a']", true},
		{"{'a': 1} == {'a': 1.0}", true}, {"nil == nil", true}, {"vars.none == nil", true}, {"input.week == 1", false},
		{"true and false", false}, {"true && true", true}, {"false or true", true}, {"false || false", false},
		{"not true", false}, {"!false", true}, {"false and vars.missing.x", false}, {"true or vars.missing.x", true},
		{"2 in [1, 2]", true}, {"'c' in ['a']", false}, {"'a' in vars.m", true}, {"'a' not in vars.m", false},
		{"1 in vars.m", false}, {"'q' in vars.strs", true},
		{"vars.gate contains 'k'", true}, {"vars.gate startsWith 'o'", true}, {"vars.gate endsWith 'x'", false},
		{"vars.gate not contains 'k'", false},
		{"vars.gate == 'ok' ? 'yes' : 'no'", "yes"}, {"vars.none ?? 'dflt'", "dflt"}, {"vars.gate ?? 'dflt'", "ok"},
		{"vars.none?.x", nil}, {"vars.none?.x.y ?? 3", 3},
		// slices
		{"vars.nums[1:]", []any{1, 2}}, {"vars.nums[:-1]", []any{3, 1}}, {"vars.nums[5:9]", []any{}},
		{"input.week[:4]", "2026"}, {"vars.nums[:]", []any{3, 1, 2}},
		// functions
		{"len(vars.items)", 4}, {"len('周报')", 2}, {"len(vars.m)", 2}, {"len(vars.none)", 0}, {"len(vars.typed)", 1},
		{"upper('abc')", "ABC"}, {"lower('AbC')", "abc"}, {"trim('  a ')", "a"}, {"trim('xxaxx', 'x')", "a"},
		{"contains('hello', 'ell')", true}, {"contains(vars.items, 2.5)", true}, {"contains(vars.m, 'z')", false},
		{"not contains('a', 'b')", true},
		{"startsWith(input.week, '2026')", true}, {"endsWith(input.week, 'W48')", false},
		{"keys(vars.m)", []any{"a", "b"}}, {"values(vars.m)", []any{1, 2}}, {"keys(vars.typed)", []any{"z"}},
		{"int('42')", 42}, {"int(' 7 ')", 7}, {"int(3.9)", 3}, {"int(-3.9)", -3}, {"int('2.5')", 2}, {"int(input.n)", 12},
		{"float(2)", 2.0}, {"float('1e3')", 1000.0},
		{"string(1.5)", "1.5"}, {"string(3)", "3"}, {"string(true)", "true"}, {"string(nil)", ""},
		{"string([1, {'b': 1e21, 'a': 'x'}])", `[1,{"a":"x","b":1e+21}]`}, {"string(0.1 + 0.2)", "0.30000000000000004"},
		{"abs(-3)", 3}, {"abs(-2.5)", 2.5},
		{"round(2.5)", 3.0}, {"round(-2.5)", -3.0}, {"round(2.675, 2)", 2.68}, {"round(1.005, 2)", 1.01},
		{"round(7)", 7}, {"round(1.23456, 4)", 1.2346}, {"round(2.5, 0)", 3.0},
		{"min(3, 1, 2)", 1}, {"min(vars.nums)", 1}, {"max(vars.nums)", 3}, {"max(1, 2.5)", 2.5}, {"min(7)", 7},
		{"max([1, nil, 4])", 4},
		{"sum(vars.nums)", 6}, {"sum([1, 2.5])", 3.5}, {"sum([])", 0}, {"sum([nil, 1])", 1},
		{"avg(vars.nums)", 2.0}, {"avg([1, nil, 2])", 1.5},
		{"count(vars.items)", 3}, {"count([])", 0},
	}
	env := testEnv()
	for _, tc := range cases {
		got, err := evalT(t, tc.src, env)
		if err != nil {
			t.Errorf("Eval(%q): %v", tc.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Eval(%q) = %#v (%T), want %#v (%T)", tc.src, got, got, tc.want, tc.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"vars.missing.x", "vars.missing is nil"},
		{"vars.nums[7]", "index 7 is out of range (the list has 3 items)"},
		{"vars.nums[1.5]", "whole number"},
		{"input.week[20]", "out of range"},
		{"vars.gate.x.y", `vars.gate is a string, not a map, so field "x" cannot be read`},
		{"1 / 0", "division by zero"},
		{"1 % 0", "remainder of division by zero"},
		{"1.5 % 0", "remainder of division by zero"},
		{"10.0 ** 400", "does not give a finite number"},
		{"vars.gate + 1", `"+" needs numbers, but got a string and a number`},
		{"vars.gate - 1", `"-" needs numbers`},
		{"vars.gate and true", `"and" needs true or false, but vars.gate is a string`},
		{"true and vars.gate", `"and" needs true or false`},
		{"not vars.gate", "not needs true or false"},
		{"-vars.gate", "needs a number"},
		{"vars.gate < 1", "cannot order a string and a number"},
		{"1 in vars.gate", "in needs a list or a map"},
		{"vars.gate ? 1 : 2", "not true or false"},
		{"len(vars.m.a)", "len needs text, a list or a map"},
		{"upper(vars.nums)", "upper needs text"},
		{"trim('a', vars.nums)", "trim needs text"},
		{"startsWith(vars.nums, 'a')", "startsWith needs text"},
		{"keys(vars.nums)", "keys needs a map"},
		{"int('abc')", "int cannot convert"},
		{"int(vars.nums)", "int cannot convert"},
		{"float('x')", "float cannot convert"},
		{"abs(vars.gate)", "abs needs a number"},
		{"round(vars.gate)", "round needs a number"},
		{"round(1.5, 20)", "decimals must be a whole number from 0 to 15"},
		{"min([])", "there are no values"},
		{"avg([nil])", "there are no values to average"},
		{"sum(vars.items)", `sum: item 2 is a string, not a number`},
		{"max(vars.gate)", "max needs a list"},
		{"{(vars.nums[0]): 1}", "a map key must be a string"},
		{"item", "item is only defined inside a loop body"},
	}
	env := testEnv()
	for _, tc := range cases {
		_, err := evalT(t, tc.src, env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Eval(%q) error = %v, want it to contain %q", tc.src, err, tc.want)
			continue
		}
		re, ok := err.(*RuntimeError)
		if !ok || re.Offset < 0 || re.End > len(tc.src) || re.Offset > re.End {
			t.Errorf("Eval(%q) error %#v is not a located RuntimeError", tc.src, err)
		}
	}
}

func TestEvalLoop(t *testing.T) {
	p, err := Compile("upper(item.name) + string(index)", Transform)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Eval(map[string]any{"item": map[string]any{"name": "ab"}, "index": 2})
	if err != nil || got != "AB2" {
		t.Fatalf("Eval = %v, %v", got, err)
	}
}

func TestEvalBool(t *testing.T) {
	env := testEnv()
	for src, want := range map[string]bool{"vars.gate == 'ok'": true, "len(vars.nums) > 5": false, "{{ true }}": true} {
		p, err := Compile(src, Cond)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.EvalBool(env)
		if err != nil || got != want {
			t.Errorf("EvalBool(%q) = %v, %v; want %v", src, got, err, want)
		}
	}
	p, err := Compile("vars.gate", Cond)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.EvalBool(env); err == nil || !strings.Contains(err.Error(), "is a string, not true or false") {
		t.Fatalf("EvalBool(vars.gate) error = %v", err)
	}
}

// TestEvalConcurrent shares one Program between goroutines; run with -race.
func TestEvalConcurrent(t *testing.T) {
	p, err := Compile("sum(col(nodes.pull, 'gmv')) + len(vars.nums)", Metric)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := testEnv()
			for i := 0; i < 50; i++ {
				n := 0
				v, err := p.EvalMetric(env, nil, func(Cell) { n++ })
				if err != nil || v != 163.5 || n != 3 {
					errs <- fmt.Errorf("EvalMetric = %v, %v, %d cells", v, err, n)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestStringify(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{nil, ""}, {"a{{b}}", "a{{b}}"}, {true, "true"}, {7, "7"}, {int64(-3), "-3"}, {2.0, "2"}, {1e21, "1e+21"},
		{0.000001, "0.000001"}, {1e-7, "1e-7"}, {[]any{1, "x"}, `[1,"x"]`}, {map[string]any{"b": 1, "a": []string{"<"}}, `{"a":["<"],"b":1}`},
		{json.Number("1.50"), "1.5"}, {float32(0.5), "0.5"},
	}
	for _, c := range cases {
		if got, err := Stringify(c.in); err != nil || got != c.want {
			t.Errorf("Stringify(%#v) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestEvalList(t *testing.T) {
	env := testEnv()
	cases := []struct {
		src  string
		want []any
		err  string
	}{
		{"vars.nums", []any{3, 1, 2}, ""},
		{"vars.strs", []any{"p", "q"}, ""},
		{"nodes.pull.rows[0:1]", []any{pullSnapshot()["rows"].([]any)[0]}, ""},
		{"vars.none", []any{}, ""},
		{"vars.m", nil, "is a map, not a list"},
		{"vars.gate", nil, "is a string, not a list"},
	}
	for _, tc := range cases {
		p, err := Compile(tc.src, Over)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.EvalList(env)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("EvalList(%q) error = %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("EvalList(%q) = %#v, %v; want %#v", tc.src, got, err, tc.want)
		}
	}
}
