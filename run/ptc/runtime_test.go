package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run/sandbox"
)

// programs holds one program per case and language; every case runs in
// both languages (a language is skipped when its interpreter is missing).
var programs = map[string]map[string]string{
	"sequential": {
		LangPython: `
a = await sales({"region": "north"})
b = await stock({"item": "pen"})
print("got", a["region"])
return {"gmv": a["gmv"], "units": b["units"]}`,
		LangJavaScript: `
const a = await sales({region: "north"});
const b = await stock({item: "pen"});
console.log("got", a.region);
return {gmv: a.gmv, units: b.units};`,
	},
	"concurrent": {
		LangPython: `
rs = await asyncio.gather(*[sales({"region": r}) for r in ["a", "bb", "ccc", "dddd", "eeeee"]])
return [r["gmv"] for r in rs]`,
		LangJavaScript: `
const rs = await Promise.all(["a", "bb", "ccc", "dddd", "eeeee"].map(r => sales({region: r})));
return rs.map(r => r.gmv);`,
	},
	"caught": {
		LangPython: `
try:
    await broken({})
except ToolCallError as e:
    return {"caught": e.tool, "message": e.message, "id": e.id}`,
		LangJavaScript: `
try {
  await broken({});
} catch (e) {
  if (!(e instanceof ToolCallError)) throw e;
  return {caught: e.tool, message: e.message, id: e.id};
}`,
	},
	"uncaught": {
		LangPython:     `await stock({"item": "x"})` + "\n" + `await broken({})`,
		LangJavaScript: `await stock({item: "x"}); await broken({});`,
	},
	"printed json": {
		LangPython:     `r = await sales({"region": "west"}); print(json.dumps({"total": r["gmv"]}))`,
		LangJavaScript: `const r = await sales({region: "west"}); console.log(JSON.stringify({total: r.gmv}));`,
	},
	"exception": {
		LangPython:     `raise ValueError("no data for this week")`,
		LangJavaScript: `throw new RangeError("no data for this week");`,
	},
	"syntax": {
		LangPython:     "return (1 +",
		LangJavaScript: "return (1 +",
	},
	"flood": {
		LangPython:     "while True:\n    print('x' * 1000)",
		LangJavaScript: "for (;;) console.log('x'.repeat(1000));",
	},
	"sleep": {
		LangPython:     "await asyncio.sleep(60)",
		LangJavaScript: "await new Promise(r => setTimeout(r, 60000));",
	},
	"big result": {
		LangPython: `
try:
    await big({})
except ToolCallError as e:
    return {"refused": e.message}`,
		LangJavaScript: `
try { await big({}); } catch (e) { return {refused: e.message}; }`,
	},
	"big call": {
		LangPython:     `await stock({"item": "y" * 100000})`,
		LangJavaScript: `await stock({item: "y".repeat(100000)});`,
	},
	"big return": {
		LangPython:     `return "z" * 100000`,
		LangJavaScript: `return "z".repeat(100000);`,
	},
	"unknown tool": {
		LangPython: `
try:
    import __main__
    await __main__._agentlab_call("rm_rf", {})
except ToolCallError as e:
    return e.message`,
		LangJavaScript: `return "skipped"`,
	},
	"debug": {
		LangPython:     `import os; await stock({"item": "z"}); return os.environ.get("AGENTLAB_PTC_DEBUG")`,
		LangJavaScript: `await stock({item: "z"}); return process.env.AGENTLAB_PTC_DEBUG`,
	},
	"stray fd1": {
		LangPython:     "import os\nos.write(1, b'raw bytes\\n')\nreturn 'ok'",
		LangJavaScript: "return 'ok'",
	},
}

func forLanguages(t *testing.T, f func(t *testing.T, lang string)) {
	for _, lang := range []string{LangPython, LangJavaScript} {
		t.Run(lang, func(t *testing.T) {
			needInterpreter(t, lang)
			t.Parallel()
			f(t, lang)
		})
	}
}

func TestSequentialCalls(t *testing.T) {
	forLanguages(t, func(t *testing.T, lang string) {
		f := &fakeTools{}
		res := runProgram(t, lang, programs["sequential"][lang], f, nil)
		mustOK(t, res)
		if string(res.Output) != `{"gmv":500,"units":7}` {
			t.Errorf("output = %s", res.Output)
		}
		if res.Stdout != "got north\n" {
			t.Errorf("stdout = %q", res.Stdout)
		}
		want := []string{`c1:ptc:1 sales {"region":"north"}`, `c1:ptc:2 stock {"item":"pen"}`}
		if !slices.Equal(f.calls, want) {
			t.Errorf("calls = %q, want %q", f.calls, want)
		}
		if len(res.SubCalls) != 2 || res.SubCalls[0].ID != "c1:ptc:1" || res.SubCalls[1].Tool != "stock" {
			t.Errorf("sub-calls = %+v", res.SubCalls)
		}
		if res.Sandbox.Runtime == "" || res.Sandbox.Backend == "" {
			t.Errorf("sandbox facts missing: %+v", res.Sandbox)
		}
	})
}

func TestConcurrentCallsCapped(t *testing.T) {
	forLanguages(t, func(t *testing.T, lang string) {
		f := &fakeTools{delay: 150 * time.Millisecond}
		res := runProgram(t, lang, programs["concurrent"][lang], f, func(s *Spec) { s.MaxParallel = 2 })
		mustOK(t, res)
		if string(res.Output) != `[100,200,300,400,500]` {
			t.Errorf("output = %s", res.Output)
		}
		if p := f.peak.Load(); p != 2 {
			t.Errorf("at most %d calls ran at once, want exactly 2 (the cap, reached)", p)
		}
		var ids []string
		for _, c := range res.SubCalls {
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, []string{"c1:ptc:1", "c1:ptc:2", "c1:ptc:3", "c1:ptc:4", "c1:ptc:5"}) {
			t.Errorf("ids = %q", ids)
		}
	})
}

func TestToolErrorCaught(t *testing.T) {
	forLanguages(t, func(t *testing.T, lang string) {
		res := runProgram(t, lang, programs["caught"][lang], &fakeTools{}, nil)
		mustOK(t, res)
		if string(res.Output) != `{"caught":"broken","id":"c1:ptc:1","message":"sales ledger is locked"}` &&
			string(res.Output) != `{"caught":"broken","message":"sales ledger is locked","id":"c1:ptc:1"}` {
			t.Errorf("output = %s", res.Output)
		}
		if res.SubCalls[0].Error != "sales ledger is locked" {
			t.Errorf("sub-call error = %q", res.SubCalls[0].Error)
		}
		if !strings.Contains(res.ForModel(), `"failed_sub_calls":[{"id":"c1:ptc:1","tool":"broken","error":"sales ledger is locked"}]`) {
			t.Errorf("model text = %s", res.ForModel())
		}
	})
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name  string
		kind  string
		tweak func(*Spec)
		check func(t *testing.T, res *Result)
	}{
		{"uncaught", KindToolError, nil, func(t *testing.T, res *Result) {
			if res.Failure.Tool != "broken" || res.Failure.SubCall != "c1:ptc:2" || !strings.Contains(res.Failure.Message, "sales ledger is locked") {
				t.Errorf("failure = %+v", res.Failure)
			}
			if !strings.Contains(res.Logs, "ToolCallError") {
				t.Errorf("logs lack the traceback: %q", res.Logs)
			}
		}},
		{"exception", KindExit, nil, func(t *testing.T, res *Result) {
			if !strings.Contains(res.Failure.Message, "no data for this week") || !strings.Contains(res.Logs, "no data for this week") {
				t.Errorf("failure = %+v logs %q", res.Failure, res.Logs)
			}
		}},
		{"syntax", KindExit, nil, func(t *testing.T, res *Result) {
			if !strings.Contains(res.Failure.Message, "SyntaxError") {
				t.Errorf("failure = %+v", res.Failure)
			}
		}},
		{"flood", KindOutputCap, func(s *Spec) { s.OutputCap = 64 << 10 }, func(t *testing.T, res *Result) {
			if len(res.Stdout) != 64<<10 {
				t.Errorf("kept %d bytes of stdout, want the cap", len(res.Stdout))
			}
		}},
		{"sleep", KindTimeout, func(s *Spec) { s.Timeout = 2 * time.Second }, func(t *testing.T, res *Result) {
			if res.Duration > 10*time.Second {
				t.Errorf("took %s", res.Duration)
			}
		}},
		{"big return", KindProtocol, func(s *Spec) { s.MaxFrame = 16 << 10 }, func(t *testing.T, res *Result) {
			if !strings.Contains(res.Failure.Message, "done frame of") || !strings.Contains(res.Failure.Message, "larger than the frame limit") {
				t.Errorf("failure = %+v", res.Failure)
			}
		}},
		{"big call", KindProtocol, func(s *Spec) { s.MaxFrame = 16 << 10 }, func(t *testing.T, res *Result) {
			if !strings.Contains(res.Failure.Message, "larger than the frame limit of 16384 bytes") {
				t.Errorf("failure = %+v", res.Failure)
			}
			if len(res.SubCalls) != 0 {
				t.Errorf("an oversized call reached agentlab: %+v", res.SubCalls)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forLanguages(t, func(t *testing.T, lang string) {
				res := runProgram(t, lang, programs[tt.name][lang], &fakeTools{}, tt.tweak)
				mustFail(t, res, tt.kind)
				tt.check(t, res)
				var m map[string]any
				if err := json.Unmarshal([]byte(res.ForModel()), &m); err != nil || m["ok"] != false || m["sandbox"] == nil {
					t.Errorf("model text = %s (%v)", res.ForModel(), err)
				}
			})
		})
	}
}

func TestOutputForms(t *testing.T) {
	forLanguages(t, func(t *testing.T, lang string) {
		res := runProgram(t, lang, programs["printed json"][lang], &fakeTools{}, nil)
		mustOK(t, res)
		if string(res.Output) != `{"total":400}` && string(res.Output) != `{"total": 400}` {
			t.Errorf("printed JSON should be the output, got %s", res.Output)
		}
		res = runProgram(t, lang, programs["big result"][lang], &fakeTools{size: 40 << 10}, func(s *Spec) { s.MaxFrame = 16 << 10 })
		mustOK(t, res)
		if !strings.Contains(string(res.Output), "larger than the frame limit of 16384 bytes") {
			t.Errorf("an oversized result must reach the program as a ToolCallError, got %s", res.Output)
		}
		res = runProgram(t, lang, programs["debug"][lang], &fakeTools{}, func(s *Spec) {
			s.SandboxEnv = sdk.Decide(sdk.Config{Mode: sdk.ModeOn, RolloutPercent: 100, DebugConfigured: true}, "u", []string{"t"}, "").SandboxEnv
		})
		mustOK(t, res)
		if string(res.Output) != `"true"` || !strings.Contains(res.Logs, "agentlab-ptc: call ref 1: stock") {
			t.Errorf("debug: output %s logs %q", res.Output, res.Logs)
		}
		res = runProgram(t, lang, programs["debug"][lang], &fakeTools{}, nil)
		mustOK(t, res)
		if string(res.Output) != "null" || strings.Contains(res.Logs, "agentlab-ptc:") {
			t.Errorf("no debug: output %s logs %q", res.Output, res.Logs)
		}
	})
}

func TestUnknownToolRefused(t *testing.T) {
	needInterpreter(t, LangPython)
	f := &fakeTools{}
	res := runProgram(t, LangPython, programs["unknown tool"][LangPython], f, nil)
	mustOK(t, res)
	if !strings.Contains(string(res.Output), `no tool named \"rm_rf\"`) || len(f.calls) != 0 {
		t.Errorf("output %s, calls %q", res.Output, f.calls)
	}
}

func TestStrayStdoutGoesToLogs(t *testing.T) {
	needInterpreter(t, LangPython)
	res := runProgram(t, LangPython, programs["stray fd1"][LangPython], &fakeTools{}, nil)
	mustOK(t, res)
	if !strings.Contains(res.Logs, "raw bytes") || res.Stdout != "" {
		t.Errorf("stdout %q logs %q", res.Stdout, res.Logs)
	}
}

func TestProcessBackend(t *testing.T) {
	needInterpreter(t, LangPython)
	res := runProgram(t, LangPython, programs["sequential"][LangPython], &fakeTools{}, func(s *Spec) { s.Backend = sandbox.Process })
	mustOK(t, res)
	if res.Sandbox.Backend != "process" || res.Sandbox.Isolated {
		t.Errorf("facts = %+v", res.Sandbox)
	}
}

func TestCancelled(t *testing.T) {
	needInterpreter(t, LangPython)
	// Cancel once the sub-call is under way (not after a fixed time, which
	// a loaded machine may spend starting the interpreter).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeTools{delay: time.Minute}
	call := func(cctx context.Context, id, name string, args json.RawMessage) (json.RawMessage, error) {
		cancel()
		return f.call(cctx, id, name, args)
	}
	start := time.Now()
	res, err := Run(ctx, Spec{CallID: "c1", Language: LangPython, Program: `await sales({"region": "x"})`,
		Tools: f.infos(), CallTool: call, Dir: workdir(t)})
	if !errors.Is(err, context.Canceled) || res == nil || res.OK() {
		t.Fatalf("res %+v err %v", res, err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("cancel took %s", time.Since(start))
	}
	if len(res.SubCalls) != 1 || !strings.Contains(res.SubCalls[0].Error, "context") {
		t.Errorf("the pending sub-call must end with the run: %+v", res.SubCalls)
	}
}
