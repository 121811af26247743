package ptc

import (
	"strings"
	"testing"
	"time"
)

// rawPrelude starts a raw (prelude-less) Python program that speaks the
// protocol by hand: send writes a frame, recv reads one.
const rawPrelude = `import json, sys, time
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
def recv():
    return json.loads(sys.stdin.readline())
`

// handshake is the correct start of the protocol.
const handshake = `send({"type": "ready", "protocol": 1}); boot = recv()
`

// TestProtocolViolations plays a misbehaving program side and checks that
// each violation ends the program with the right failure and a clear
// message.
func TestProtocolViolations(t *testing.T) {
	needInterpreter(t, LangPython)
	tests := []struct {
		name, program, kind, msg string
		tweak                    func(*Spec)
	}{
		{"malformed frame", handshake + `print("hello, not a frame", flush=True); time.sleep(30)`,
			KindProtocol, `malformed frame`, nil},
		{"oversized frame", handshake + `sys.stdout.write("x" * 100000); sys.stdout.flush(); time.sleep(30)`,
			KindProtocol, "frame of more than 16384 bytes (the frame limit)", func(s *Spec) { s.MaxFrame = 16 << 10 }},
		{"no done, clean exit", handshake, KindProtocol, "ended without sending its done frame", nil},
		{"no done, error exit", handshake + `sys.exit(7)`, KindExit, "exited with status 7", nil},
		{"never sends done", handshake + `time.sleep(60)`, KindTimeout, "did not finish within 2s", func(s *Spec) { s.Timeout = 2 * time.Second }},
		{"never ready", `time.sleep(60)`, KindTimeout, "did not finish", func(s *Spec) { s.Timeout = 2 * time.Second }},
		{"call before ready", `send({"type": "call", "ref": 1, "tool": "stock", "args": {}}); time.sleep(30)`,
			KindProtocol, `"call" frame before its ready frame`, nil},
		{"wrong protocol version", `send({"type": "ready", "protocol": 9}); time.sleep(30)`,
			KindProtocol, "speaks protocol 9", nil},
		{"frame after done", handshake + `send({"type": "done", "ok": True, "output": 1}); send({"type": "stdout", "data": "late"}); time.sleep(30)`,
			KindProtocol, `"stdout" frame after its done frame`, nil},
		{"agentlab-only frame", handshake + `send({"type": "result", "ref": 1}); time.sleep(30)`,
			KindProtocol, "only agentlab sends", nil},
		{"unknown frame type", handshake + `send({"type": "shout"}); time.sleep(30)`,
			KindProtocol, `unknown type "shout"`, nil},
		{"args not an object", handshake + `send({"type": "call", "ref": 1, "tool": "stock", "args": [1]}); time.sleep(30)`,
			KindProtocol, "not a JSON object", nil},
		{"ref reused while pending", handshake + `send({"type": "call", "ref": 1, "tool": "sales", "args": {"region": "a"}}); send({"type": "call", "ref": 1, "tool": "sales", "args": {"region": "b"}}); time.sleep(30)`,
			KindProtocol, "reused ref 1", nil},
		{"too many pending", handshake + `[send({"type": "call", "ref": i, "tool": "sales", "args": {"region": "a"}}) for i in range(20)]; time.sleep(30)`,
			KindProtocol, "more than 4 tool calls pending", func(s *Spec) { s.MaxPending, s.MaxParallel = 4, 1 }},
		{"failed done", handshake + `send({"type": "done", "ok": False, "error": {"kind": "exception", "type": "KeyError", "message": "'gmv'"}})`,
			KindExit, "raised KeyError: 'gmv'", nil},
		{"done with output, exit status ignored", handshake + `send({"type": "done", "ok": True, "output": {"n": 1}}); sys.exit(2)`,
			"", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeTools{delay: 5 * time.Second}
			start := time.Now()
			res := runProgram(t, LangPython, rawPrelude+tt.program, f, func(s *Spec) {
				s.raw = true
				if tt.tweak != nil {
					tt.tweak(s)
				}
			})
			if tt.kind == "" {
				mustOK(t, res)
				if string(res.Output) != `{"n": 1}` && string(res.Output) != `{"n":1}` {
					t.Errorf("output = %s", res.Output)
				}
				return
			}
			mustFail(t, res, tt.kind)
			if !strings.Contains(res.Failure.Message, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", res.Failure.Message, tt.msg)
			}
			// A violation stops the program at once, not at the timeout.
			if tt.kind == KindProtocol && time.Since(start) > 10*time.Second {
				t.Errorf("took %s to stop a broken program", time.Since(start))
			}
		})
	}
}

// TestProgramSideFrameLimit checks the program's half of the frame
// limit: a result line longer than the limit agentlab announced is a
// protocol error in the program. agentlab never sends one (an oversized
// result becomes a ToolCallError), so the test shrinks the prelude's view
// of the limit below agentlab's.
func TestProgramSideFrameLimit(t *testing.T) {
	needInterpreter(t, LangPython)
	program := strings.Replace(Source(LangPython, `await sales({"region": "`+strings.Repeat("r", 125)+`"})`, (&fakeTools{}).infos()),
		`ch.max_frame = int(boot.get("max_frame") or ch.max_frame)`, `ch.max_frame = 200`, 1)
	if !strings.Contains(program, "ch.max_frame = 200") {
		t.Fatal("prelude changed: update this test")
	}
	res := runProgram(t, LangPython, program, &fakeTools{}, func(s *Spec) { s.raw = true })
	mustFail(t, res, KindProtocol)
	if !strings.Contains(res.Failure.Message, "a frame from agentlab is larger than the frame limit of 200 bytes") {
		t.Errorf("message = %q", res.Failure.Message)
	}
	if len(res.SubCalls) != 1 {
		t.Errorf("sub-calls = %+v", res.SubCalls)
	}
}

func TestSpecRefused(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"language", Spec{Language: "ruby", CallID: "c", CallTool: (&fakeTools{}).call, Dir: "."}, `language "ruby"`},
		{"call id", Spec{Language: "python", CallTool: (&fakeTools{}).call, Dir: "."}, "no call id"},
		{"call tool", Spec{Language: "python", CallID: "c", Dir: "."}, "no CallTool"},
		{"dir", Spec{Language: "python", CallID: "c", CallTool: (&fakeTools{}).call}, "no working directory"},
		{"negative", Spec{Language: "python", CallID: "c", CallTool: (&fakeTools{}).call, Dir: ".", Timeout: -1}, "negative"},
	}
	for _, tt := range tests {
		_, err := Run(t.Context(), tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	s := Spec{Language: "typescript", CallID: "c", CallTool: (&fakeTools{}).call, Dir: ".", Timeout: time.Hour, MaxParallel: 1000}
	if err := s.normalise(); err != nil {
		t.Fatal(err)
	}
	if s.Language != LangJavaScript || s.Timeout != MaxTimeout || s.MaxParallel != MaxMaxParallel || s.MaxPending != DefaultMaxPending ||
		s.OutputCap != DefaultOutputCap || s.MaxFrame != DefaultMaxFrame {
		t.Errorf("normalised = %+v", s)
	}
	s = Spec{Language: "python", CallID: "c", CallTool: (&fakeTools{}).call, Dir: "."}
	_ = s.normalise()
	if s.Timeout != DefaultTimeout || s.MaxParallel != DefaultMaxParallel {
		t.Errorf("defaults = %+v", s)
	}
}
