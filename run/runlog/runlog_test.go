package runlog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentlab/agentlab/run/store"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fixedClock ticks one millisecond per call, like a deterministic run.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	n := 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		n++
		return t0.Add(time.Duration(n) * time.Millisecond)
	}
}

func createRun(t *testing.T, dataDir, id string) *Run {
	t.Helper()
	r, err := Create(dataDir, id)
	if err != nil {
		t.Fatal(err)
	}
	r.SetClock(fixedClock())
	return r
}

func appendAll(t *testing.T, r *Run) {
	t.Helper()
	steps := []Pending{
		{chain.TypeRunStarted, "", map[string]any{"plan": "x"}},
		{chain.TypeNodeStarted, "a", nil},
		{chain.TypeNodeFinished, "a", map[string]any{"out": 1}},
		{chain.TypeRunFinished, "", map[string]any{"status": "succeeded"}},
	}
	for _, s := range steps {
		if _, err := r.Append(s.Type, s.Node, s.Data); err != nil {
			t.Fatal(err)
		}
	}
}

const plan = "b3:1111111111111111111111111111111111111111111111111111111111111111"

func TestCreateAppendReopen(t *testing.T) {
	data := t.TempDir()
	r := createRun(t, data, "r1")
	if err := r.WriteRecord(Record{Plan: plan, Status: StatusRunning, Created: r.Now()}); err != nil {
		t.Fatal(err)
	}
	appendAll(t, r)
	art, err := r.PutArtifact([]byte(strings.Repeat("big ", 2000)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Append(chain.TypeHumanDecided, "gate", map[string]any{"decision_artifact": art.String()}); err != nil {
		t.Fatal(err)
	}
	s, h, err := r.Seal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if s.Seq != 4 || len(s.Artifacts) != 0 {
		t.Errorf("seal = %+v (the event after run.finished must be outside it)", s)
	}
	if r.Record().Seal != h.String() || r.Record().SealData == nil {
		t.Errorf("record not sealed: %+v", r.Record())
	}
	if err := r.WriteCheckpoint(map[string]any{"done": []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := r.Append("x.y", "", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("append after close: %v", err)
	}

	r2, err := Open(data, "r1")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.Repaired() != "" {
		t.Errorf("clean log repaired: %s", r2.Repaired())
	}
	if got := r2.Events(); len(got) != 5 || got[4].Type != chain.TypeHumanDecided {
		t.Fatalf("events after reopen: %d", len(got))
	}
	if r2.Record().Seal != h.String() {
		t.Errorf("record after reopen: %+v", r2.Record())
	}
	var cp struct{ Done []string }
	if err := r2.ReadCheckpoint(&cp); err != nil || len(cp.Done) != 1 {
		t.Errorf("checkpoint = %+v, %v", cp, err)
	}
	e, err := r2.Append(chain.TypeNodeStarted, "b", nil)
	if err != nil || e.Seq != 6 {
		t.Fatalf("append after reopen: %+v, %v", e, err)
	}
	snap, err := OpenReadOnly(data, "r1")
	if err != nil || len(snap.Problems) != 0 || len(snap.Events) != 6 || !snap.HasRecord {
		t.Fatalf("snapshot: %+v, %v", snap, err)
	}
}

func TestCheckpointMissing(t *testing.T) {
	r := createRun(t, t.TempDir(), "r1")
	defer r.Close()
	var v any
	if err := r.ReadCheckpoint(&v); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}

func TestBadIDs(t *testing.T) {
	for _, id := range []string{"", "../x", "a/b", ".hidden", "-x", strings.Repeat("a", 129), "a b"} {
		if _, err := Create(t.TempDir(), id); !errors.Is(err, ErrBadID) {
			t.Errorf("Create(%q) = %v", id, err)
		}
	}
}

func TestCreateExisting(t *testing.T) {
	data := t.TempDir()
	r := createRun(t, data, "r1")
	r.Close()
	_, err := Create(data, "r1")
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "agentlab resume r1") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Open(data, "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open missing: %v", err)
	}
}

func TestNodeTokenNotRecorded(t *testing.T) {
	r := createRun(t, t.TempDir(), "r1")
	defer r.Close()
	if _, err := r.Append(chain.TypeNodeToken, "a", map[string]any{"t": "hi"}); !errors.Is(err, ErrUnrecorded) {
		t.Fatalf("err = %v", err)
	}
	if len(r.Events()) != 0 {
		t.Fatal("token event was recorded")
	}
}

func TestAppendBatchAllOrNothing(t *testing.T) {
	r := createRun(t, t.TempDir(), "r1")
	defer r.Close()
	_, err := r.AppendBatch([]Pending{{Type: chain.TypeRunStarted}, {Type: chain.TypeNodeStarted, Data: map[string]any{"f": func() {}}}})
	if err == nil || len(r.Events()) != 0 {
		t.Fatalf("err = %v, events = %d", err, len(r.Events()))
	}
	evs, err := r.AppendBatch([]Pending{{Type: chain.TypeRunStarted}, {Type: chain.TypeNodeStarted, Node: "a"}})
	if err != nil || len(evs) != 2 || evs[1].Prev != evs[0].Hash {
		t.Fatalf("batch: %+v, %v", evs, err)
	}
}

// TestTornTail simulates a crash in the middle of an append.
func TestTornTail(t *testing.T) {
	tests := []struct {
		name string
		tail string
	}{
		{"half a line", `{"seq":5,"time":"2026-11-29T12:0`},
		{"zeros", "\x00\x00\x00\x00"},
		{"garbage with newline", "{\"seq\":5,\"ti\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			r := createRun(t, data, "r1")
			appendAll(t, r)
			r.Close()
			path := filepath.Join(data, "runs", "r1", EventsFile)
			whole, _ := os.ReadFile(path)
			f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(tt.tail)
			f.Close()

			snap, err := OpenReadOnly(data, "r1")
			if err != nil || snap.Torn == nil || snap.Torn.Offset != int64(len(whole)) || len(snap.Events) != 4 {
				t.Fatalf("read-only snapshot: %+v, %v", snap, err)
			}
			if b, _ := os.ReadFile(path); len(b) == len(whole) {
				t.Fatal("OpenReadOnly repaired the file")
			}

			r2, err := Open(data, "r1")
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			if !strings.Contains(r2.Repaired(), "incomplete last line") {
				t.Errorf("repair not reported: %q", r2.Repaired())
			}
			if b, _ := os.ReadFile(path); string(b) != string(whole) {
				t.Errorf("file not cut back to its whole lines")
			}
			saved, err := os.ReadFile(fmt.Sprintf("%s.torn-%d", path, len(whole)))
			if err != nil || string(saved) != tt.tail {
				t.Errorf("torn bytes not kept: %q, %v", saved, err)
			}
			if e, err := r2.Append(chain.TypeNodeStarted, "b", nil); err != nil || e.Seq != 5 {
				t.Fatalf("append after repair: %v", err)
			}
		})
	}
}

// TestDamagedLog edits a complete line: Open must refuse, naming the event.
func TestDamagedLog(t *testing.T) {
	tests := []struct {
		name string
		edit func(lines []string) []string
		want string
	}{
		{"edited field", func(l []string) []string { l[2] = strings.Replace(l[2], `"out":1`, `"out":2`, 1); return l }, "event 3: bad hash"},
		{"deleted line", func(l []string) []string { return append(l[:1:1], l[2:]...) }, "event 2: missing"},
		{"swapped lines", func(l []string) []string { l[1], l[2] = l[2], l[1]; return l }, "out of order"},
		{"not canonical", func(l []string) []string { l[1] = strings.Replace(l[1], `{"hash"`, `{ "hash"`, 1); return l }, "not in canonical JSON"},
		{"unknown key", func(l []string) []string { l[1] = strings.Replace(l[1], `{"hash"`, `{"extra":1,"hash"`, 1); return l }, "events.jsonl:2:"},
		{"broken middle line", func(l []string) []string { l[1] = l[1][:20]; return l }, "events.jsonl:2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			r := createRun(t, data, "r1")
			appendAll(t, r)
			r.Close()
			path := filepath.Join(data, "runs", "r1", EventsFile)
			b, _ := os.ReadFile(path)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			os.WriteFile(path, []byte(strings.Join(tt.edit(lines), "\n")+"\n"), 0o644)
			_, err := Open(data, "r1")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	data := t.TempDir()
	if recs, err := List(data); err != nil || len(recs) != 0 {
		t.Fatalf("empty data dir: %v, %v", recs, err)
	}
	for i, id := range []string{"old", "new", "mid"} {
		r := createRun(t, data, id)
		r.WriteRecord(Record{Status: StatusSucceeded, Created: chain.FormatTime(t0.Add(time.Duration([]int{1, 3, 2}[i]) * time.Hour))})
		r.Close()
	}
	r := createRun(t, data, "bare")
	r.Close()
	recs, err := List(data)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "new,mid,old,bare" {
		t.Errorf("order = %s", got)
	}
	if recs[3].Status != "unknown" || recs[3].Error == "" {
		t.Errorf("bare run: %+v", recs[3])
	}
}

func TestConcurrentAppend(t *testing.T) {
	data := t.TempDir()
	r := createRun(t, data, "r1")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				typ := chain.TypeNodeStarted
				if i%5 == 0 {
					typ = chain.TypeNodeFinished
				}
				if _, err := r.Append(typ, fmt.Sprintf("n%d", w), map[string]any{"i": i}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	r.Close()
	snap, err := OpenReadOnly(data, "r1")
	if err != nil || len(snap.Events) != 100 || len(snap.Problems) != 0 {
		t.Fatalf("%d events, problems %v, %v", len(snap.Events), snap.Problems, err)
	}
}

func TestSealPlanMismatch(t *testing.T) {
	r := createRun(t, t.TempDir(), "r1")
	defer r.Close()
	r.WriteRecord(Record{Plan: plan})
	appendAll(t, r)
	if _, _, err := r.Seal("b3:" + strings.Repeat("2", 64)); err == nil || !strings.Contains(err.Error(), "recorded with plan") {
		t.Fatalf("err = %v", err)
	}
}

func TestLockInProcess(t *testing.T) {
	data := t.TempDir()
	r := createRun(t, data, "r1")
	_, err := Open(data, "r1")
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Open: %v", err)
	}
	r.Close()
	r2, err := Open(data, "r1")
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	r2.Close()
}

// TestLockAcrossProcesses holds the lock in a child process (this test
// binary re-run as a helper) and checks that this process is refused with
// the child's PID, and admitted once the child has exited.
func TestLockAcrossProcesses(t *testing.T) {
	if os.Getenv("RUNLOG_LOCK_HELPER") != "" {
		return
	}
	data := t.TempDir()
	r := createRun(t, data, "r1")
	r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
	cmd.Env = append(os.Environ(), "RUNLOG_LOCK_HELPER="+data)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "locked") {
		t.Fatalf("helper: %q, %v", line, err)
	}
	_, err = Open(data, "r1")
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Errorf("Open while the helper holds the lock: %v (helper pid %d)", err, cmd.Process.Pid)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(data, "r1")
	if err != nil {
		t.Fatalf("Open after the helper exited: %v", err)
	}
	r2.Close()
}

func TestLockHelper(t *testing.T) {
	data := os.Getenv("RUNLOG_LOCK_HELPER")
	if data == "" {
		t.Skip("helper process for TestLockAcrossProcesses")
	}
	r, err := Open(data, "r1")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n') // wait for the parent
	r.Close()
}

func TestRecordJSON(t *testing.T) {
	r := createRun(t, t.TempDir(), "r1")
	defer r.Close()
	if err := r.WriteRecord(Record{Plan: plan, Status: StatusWaiting, InputsHash: plan, Waiting: []Waiting{{Node: "gate", Command: "agentlab approve r1 gate --decision approve"}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(r.Dir(), RecordFile))
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "plan", "status", "inputs_hash", "waiting", "format"} {
		if _, ok := m[k]; !ok {
			t.Errorf("run.json lacks %q: %s", k, b)
		}
	}
	if err := r.WriteRecord(Record{ID: "other"}); err == nil {
		t.Error("record for another run accepted")
	}
}

func TestPutArtifactReader(t *testing.T) {
	data := t.TempDir()
	r := createRun(t, data, "r1")
	defer r.Close()
	id, n, err := r.PutArtifactReader(strings.NewReader("streamed payload"))
	if err != nil || n != 16 {
		t.Fatal(n, err)
	}
	st, _ := r.Store()
	if b, err := st.Get(id); err != nil || string(b) != "streamed payload" {
		t.Fatalf("Get = %q, %v", b, err)
	}
	if fs, ok := st.(*store.FileStore); !ok || fs.Dir() != ArtifactsDir(data) {
		t.Errorf("store %T, want the file store at %s", st, ArtifactsDir(data))
	}
}

func TestHolder(t *testing.T) {
	data := t.TempDir()
	r := createRun(t, data, "r1")
	locked, pid, err := Holder(data, "r1")
	if err != nil || !locked || pid != os.Getpid() {
		t.Fatalf("while open: %v %d %v", locked, pid, err)
	}
	r.Close()
	if locked, _, err := Holder(data, "r1"); err != nil || locked {
		t.Fatalf("after close: %v %v", locked, err)
	}
	// Probing must not take the lock away from anybody.
	r2, err := Open(data, "r1")
	if err != nil {
		t.Fatal(err)
	}
	r2.Close()
	if locked, _, err := Holder(data, "nope"); err != nil || locked {
		t.Fatalf("missing run: %v %v", locked, err)
	}
}

// TestDamagedRunJSONSaysWhereInWords: a run.json edited by hand into the
// wrong shape is reported with the field, line and column, not with
// encoding/json's Go types.
func TestDamagedRunJSONSaysWhereInWords(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(RunsDir(dir), "r1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(RunsDir(dir), "r1", RecordFile), []byte("{\n  \"id\": \"r1\",\n  \"seed\": \"zero\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenReadOnly(dir, "r1")
	if err == nil || !strings.Contains(err.Error(), `"seed" near line 3`) || strings.Contains(err.Error(), "Go struct") {
		t.Fatalf("err = %v", err)
	}
}
