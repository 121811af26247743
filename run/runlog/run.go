package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/run/redact"
	"github.com/agentlab/agentlab/run/store"
)

// File names inside runs/<id>/.
const (
	LockFile       = "lock"
	EventsFile     = "events.jsonl"
	RecordFile     = "run.json"
	CheckpointFile = "checkpoint.json"
)

// Errors callers branch on; the returned errors wrap them.
var (
	ErrExists     = errors.New("run already exists")
	ErrNoRun      = fs.ErrNotExist
	ErrBadID      = errors.New("invalid run id")
	ErrClosed     = errors.New("run is closed")
	ErrUnrecorded = errors.New("event type is not recorded")
)

// LockedError says another process holds the run's lock.
type LockedError struct {
	Run  string
	Path string
	PID  int // 0 when unknown
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
	}
	return fmt.Sprintf("run %s is in use by %s (lock %s); wait for it to finish, or stop it, then try again", e.Run, who, e.Path)
}

// ChainError says a run's event log does not verify, so nothing may be
// appended to it.
type ChainError struct {
	Run      string
	File     string
	Problems []chain.Problem
}

func (e *ChainError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s: %s does not verify, refusing to append to it:", e.Run, e.File)
	for i, p := range e.Problems {
		if i == 5 {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Problems)-5)
			break
		}
		fmt.Fprintf(&b, "\n  %s", p)
	}
	fmt.Fprintf(&b, "\ninspect it with `agentlab verify %s`; a damaged run cannot be resumed, start a new one", filepath.Dir(e.File))
	return b.String()
}

var idPattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// CheckID validates a run id: 1-128 characters of letters, digits, '.',
// '_' and '-', starting with a letter or digit, so it is always a single
// safe path element.
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w %q: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", ErrBadID, id)
	}
	return nil
}

// RunsDir returns <data-dir>/runs.
func RunsDir(dataDir string) string { return filepath.Join(dataDir, "runs") }

// ArtifactsDir returns <data-dir>/artifacts, the file store's root.
func ArtifactsDir(dataDir string) string { return filepath.Join(dataDir, "artifacts") }

// Run is an open, locked run directory. Its methods are safe for
// concurrent use.
type Run struct {
	id      string
	dataDir string
	dir     string

	mu       sync.Mutex
	lock     *os.File
	events   store.File
	size     int64 // bytes of events.jsonl known to be whole lines
	log      []chain.Event
	rec      Record
	clock    func() time.Time
	policy   SyncPolicy
	failed   error // sticky: the log's state on disk is unknown
	repaired string
	st       store.Store
	mem      *memFile // the log of a memory run (NewMemory); nil on disk
	scratch  []byte   // AppendBatch's line buffer, kept for the next batch
	lean     bool     // events appended are kept in memory without data (KeepData)
}

// KeepData(false) keeps the events appended from now on in memory without
// their data: Events then returns them so, and Seal reads the log back
// from disk. A log of many large events (an evaluation's cases) then costs
// memory for its hashes only. Runs in memory always keep their data.
func (r *Run) KeepData(keep bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lean = !keep && r.mem == nil
}

// Create makes runs/<id>/ under dataDir and takes its lock. It fails with
// ErrExists if the run directory exists already (resume it with Open).
func Create(dataDir, runID string) (*Run, error) {
	if err := CheckID(runID); err != nil {
		return nil, err
	}
	runs := RunsDir(dataDir)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, fmt.Errorf("create run %s: %w", runID, err)
	}
	dir := filepath.Join(runs, runID)
	if err := store.CurrentFS().Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create run %s: %w in %s; continue it with `agentlab resume %s`, or remove that directory", runID, ErrExists, dir, runID)
		}
		return nil, fmt.Errorf("create run %s: %w", runID, err)
	}
	if err := store.CurrentFS().SyncDir(runs); err != nil {
		return nil, fmt.Errorf("create run %s: %w", runID, err)
	}
	r := newRun(dataDir, runID, dir)
	lk, err := lockFile(filepath.Join(dir, LockFile), runID)
	if errors.Is(err, fs.ErrNotExist) {
		// Between our mkdir and our lock another process starting the
		// same run (same derived id) found the directory without a
		// checkpoint, took it for the remains of a crash and replaced
		// it: that process owns the run now.
		return nil, &LockedError{Run: runID, Path: filepath.Join(dir, LockFile)}
	}
	if err != nil {
		return nil, err
	}
	r.lock = lk
	if err := r.openEvents(); err != nil {
		r.Close()
		return nil, err
	}
	r.rec = Record{Format: RecordFormat, ID: runID}
	return r, nil
}

// Open takes the lock of an existing run, loads its record and events and
// verifies the chain. A torn last line (an append cut short by a crash) is
// moved to events.jsonl.torn-<offset> and cut off; Repaired says so. A
// chain that does not verify is refused with a *ChainError.
func Open(dataDir, runID string) (*Run, error) {
	if err := CheckID(runID); err != nil {
		return nil, err
	}
	dir := filepath.Join(RunsDir(dataDir), runID)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("run %s: %w (looked in %s; list runs with `agentlab runs list`)", runID, ErrNoRun, dir)
	}
	r := newRun(dataDir, runID, dir)
	lk, err := lockFile(filepath.Join(dir, LockFile), runID)
	if err != nil {
		return nil, err
	}
	r.lock = lk
	if err := r.load(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func newRun(dataDir, id, dir string) *Run {
	return &Run{id: id, dataDir: dataDir, dir: dir, clock: time.Now, policy: SyncBoundaries}
}

func (r *Run) load() error {
	rec, ok, err := readRecord(r.dir)
	if err != nil {
		return err
	}
	if !ok {
		rec = Record{Format: RecordFormat, ID: r.id}
	}
	r.rec = rec
	path := filepath.Join(r.dir, EventsFile)
	evs, probs, torn, err := readEvents(path)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	if torn != nil {
		if err := repairTail(path, torn); err != nil {
			return fmt.Errorf("run %s: %w", r.id, err)
		}
		r.repaired = fmt.Sprintf("%s: removed an incomplete last line (%d bytes at offset %d, left by an interrupted write); saved as %s.torn-%d",
			path, torn.Bytes, torn.Offset, EventsFile, torn.Offset)
	}
	probs = append(probs, chain.VerifyChain(r.id, evs)...)
	if len(probs) > 0 {
		sort.SliceStable(probs, func(i, j int) bool { return probs[i].Seq < probs[j].Seq })
		return &ChainError{Run: r.id, File: path, Problems: probs}
	}
	r.log = evs
	return r.openEvents()
}

// repairTail keeps a copy of the torn bytes (nothing is lost) and cuts the
// log back to its last whole line, durably.
func repairTail(path string, t *TornTail) error {
	fsys := store.CurrentFS()
	b, err := store.ReadFileRetry(path)
	if err != nil {
		return err
	}
	keep := fmt.Sprintf("%s.torn-%d", path, t.Offset)
	if err := atomicWrite(filepath.Dir(path), filepath.Base(keep), b[t.Offset:]); err != nil {
		return fmt.Errorf("save torn tail: %w", err)
	}
	f, err := fsys.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(t.Offset); err != nil {
		return fmt.Errorf("cut torn tail: %w", err)
	}
	return f.Sync()
}

func (r *Run) openEvents() error {
	f, err := store.CurrentFS().OpenFile(filepath.Join(r.dir, EventsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("run %s: open event log: %w", r.id, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.events, r.size = f, fi.Size()
	return store.CurrentFS().SyncDir(r.dir)
}

// ID returns the run id.
func (r *Run) ID() string { return r.id }

// DataDir returns the data directory the run belongs to.
func (r *Run) DataDir() string { return filepath.Clean(r.dataDir) }

// Dir returns runs/<id> (a scratch directory for a memory run).
func (r *Run) Dir() string { return r.dir }

// Repaired describes the torn-tail repair Open did, or "" if none.
func (r *Run) Repaired() string { return r.repaired }

// SetClock sets the clock event times come from. The engine injects a
// fixed clock under SOURCE_DATE_EPOCH; runlog never reads the time itself
// except through this clock (time.Now by default).
func (r *Run) SetClock(now func() time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock = now
}

// PinClock stops the clock at *epoch when epoch is non-nil (the
// SOURCE_DATE_EPOCH of a reproducible run), so that every event carries
// that time; with nil the clock is left as it is.
func (r *Run) PinClock(epoch *time.Time) {
	if epoch == nil {
		return
	}
	t := *epoch
	r.SetClock(func() time.Time { return t })
}

// Now returns the run clock's time in chain.TimeLayout, for record fields.
func (r *Run) Now() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return chain.FormatTime(r.clock())
}

func (r *Run) isLean() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lean
}

// eventsShared returns the events written so far without copying them,
// for readers in this package that do not change them.
func (r *Run) eventsShared() []chain.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log[:len(r.log):len(r.log)]
}

// Events returns the events written so far. The slice is shared with the
// run (appends never change an event once written): read it, do not
// change its elements.
func (r *Run) Events() []chain.Event { return r.eventsShared() }

// Record returns the last record written or loaded.
func (r *Run) Record() Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rec
}

// WriteRecord replaces run.json atomically. ID and Format are filled in.
func (r *Run) WriteRecord(rec Record) error {
	if rec.ID == "" {
		rec.ID = r.id
	}
	if rec.ID != r.id {
		return fmt.Errorf("run %s: record is for run %q", r.id, rec.ID)
	}
	rec.Format = RecordFormat
	if r.mem != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.open() {
			return ErrClosed
		}
		r.rec = rec
		return nil
	}
	b, err := MarshalReadable(rec)
	if err != nil {
		return fmt.Errorf("run %s: record: %w", r.id, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.open() {
		return ErrClosed
	}
	b = redactRecord(b)
	if err := atomicWrite(r.dir, RecordFile, append(b, '\n')); err != nil {
		return fmt.Errorf("run %s: write %s: %w", r.id, RecordFile, err)
	}
	r.rec = rec
	return nil
}

// WriteCheckpoint replaces checkpoint.json atomically with v as JSON.
func (r *Run) WriteCheckpoint(v any) error {
	b, err := MarshalReadable(v)
	if err != nil {
		return fmt.Errorf("run %s: checkpoint: %w", r.id, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.open() {
		return ErrClosed
	}
	if r.mem != nil {
		return nil // nothing resumes a memory run
	}
	if err := atomicWrite(r.dir, CheckpointFile, append(b, '\n')); err != nil {
		return fmt.Errorf("run %s: write %s: %w", r.id, CheckpointFile, err)
	}
	return nil
}

// ReadCheckpoint decodes checkpoint.json into v. A run without one gives an
// error wrapping fs.ErrNotExist.
func (r *Run) ReadCheckpoint(v any) error {
	p := filepath.Join(r.dir, CheckpointFile)
	if err := checkRunFile(p, MaxCheckpointBytes, ""); err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	b, err := store.ReadFileRetry(p)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w; the checkpoint is damaged, the run cannot be resumed", p, describeJSON(b, err))
	}
	return nil
}

// Seal computes the seal over the events up to the first run.finished,
// stores it (hash and content) in run.json and returns it with its hash.
// finish amends the record in the same write (the status and outputs of
// the finished run), so that no crash can leave a seal beside a status
// that still says running.
func (r *Run) Seal(planHash string, finish ...func(*Record)) (chain.Seal, hashid.ID, error) {
	rec := r.Record()
	if rec.Plan != "" && rec.Plan != planHash {
		return chain.Seal{}, hashid.ID{}, fmt.Errorf("run %s: sealing under plan %s, but the run was recorded with plan %s", r.id, planHash, rec.Plan)
	}
	evs := r.eventsShared()
	verifyChain := r.mem == nil
	if r.isLean() {
		// The data was not kept: read the log back, as written, checking
		// its chain on the way.
		full, err := readLeanPrefix(r.id, filepath.Join(r.dir, EventsFile), len(evs))
		if err != nil {
			return chain.Seal{}, hashid.ID{}, fmt.Errorf("run %s: the event log read back is damaged: %w", r.id, err)
		}
		if len(evs) > 0 && full[len(evs)-1].Hash != evs[len(evs)-1].Hash {
			return chain.Seal{}, hashid.ID{}, fmt.Errorf("run %s: %s changed on disk while the run was open", r.id, EventsFile)
		}
		evs, verifyChain = full, false
	}
	s, err := sealEvents(r.id, planHash, evs, verifyChain)
	if err != nil {
		return chain.Seal{}, hashid.ID{}, err
	}
	h, err := s.Hash()
	if err != nil {
		return chain.Seal{}, hashid.ID{}, err
	}
	rec.Plan, rec.Seal, rec.SealData = planHash, h.String(), &s
	for _, f := range finish {
		f(&rec)
	}
	if err := r.WriteRecord(rec); err != nil {
		return chain.Seal{}, hashid.ID{}, err
	}
	crashAfterSeal()
	return s, h, nil
}

// ShareStore makes the run use st, a store of its data dir that its
// caller opened already (a session's runs share one), instead of opening
// its own on first use.
func (r *Run) ShareStore(st store.Store) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		r.st = st
	}
}

// Store returns the artifact store of the run's data dir, opening it on
// first use. Callers see only the store.Store interface, so that what
// backs it can change without them.
func (r *Run) Store() (store.Store, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		st, err := store.OpenFileStore(ArtifactsDir(r.dataDir))
		if err != nil {
			return nil, err
		}
		r.st = st
	}
	return r.st, nil
}

// PutArtifact stores b in the artifact store. Payloads over InlineLimit
// bytes belong there rather than in event data; the event then references
// the id under a key named "artifact" or ending in "_artifact" (see
// chain.IsArtifactKey), which puts the blob under the seal.
func (r *Run) PutArtifact(b []byte) (hashid.ID, error) {
	st, err := r.Store()
	if err != nil {
		return hashid.ID{}, err
	}
	return st.Put(redactArtifact(b))
}

// InlineLimit is the size above which event data should be stored as an
// artifact and referenced by id.
const InlineLimit = 4 << 10

// Close makes the log durable and releases the lock. It is safe to call
// more than once.
func (r *Run) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	if r.events != nil {
		if r.failed == nil {
			err = r.events.Sync()
		}
		if cerr := r.events.Close(); err == nil {
			err = cerr
		}
		r.events = nil
	}
	if r.lock != nil {
		if uerr := unlockFile(r.lock); err == nil {
			err = uerr
		}
		r.lock = nil
	}
	return err
}

// atomicWrite replaces dir/name with b: temp file in dir, write, fsync,
// close, rename, fsync dir.
func atomicWrite(dir, name string, b []byte) error {
	fsys := store.CurrentFS()
	tmp, err := fsys.CreateTemp(dir, ".tmp-"+name+"-*")
	if err != nil {
		return err
	}
	n, err := tmp.Write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		fsys.Remove(tmp.Name())
		return err
	}
	return fsys.SyncDir(dir)
}

func readRecord(dir string) (Record, bool, error) {
	p := filepath.Join(dir, RecordFile)
	if err := checkRunFile(p, fsutil.RecordCap.Bytes(), "; "+fsutil.RecordCap.Hint()); err != nil {
		return Record{}, false, err
	}
	b, err := store.ReadFileRetry(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, err
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return Record{}, false, fmt.Errorf("%s: %w; run.json is damaged (it was not written like this by agentlab): restore it, or inspect the run with agentlab verify", p, describeJSON(b, err))
	}
	return rec, true, nil
}

// PutArtifactWriter stores the JSON document fill writes, exactly as
// PutArtifact would store its bytes. While no secret is registered for
// redaction the document is streamed into the store as it is written, so
// a large one is never held whole; otherwise it is buffered, because
// PutArtifact's redaction decodes the document first.
func (r *Run) PutArtifactWriter(fill func(io.Writer) error) (hashid.ID, error) {
	return r.putArtifactWriter(fill, redact.Active())
}

func (r *Run) putArtifactWriter(fill func(io.Writer) error, buffered bool) (hashid.ID, error) {
	if buffered {
		var b bytes.Buffer
		if err := fill(&b); err != nil {
			return hashid.ID{}, err
		}
		return r.PutArtifact(b.Bytes())
	}
	st, err := r.Store()
	if err != nil {
		return hashid.ID{}, err
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		err := fill(bw)
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	id, _, err := st.PutReader(pr)
	pr.CloseWithError(io.ErrClosedPipe) // fill stops if the store stopped reading early
	return id, err
}

// PutArtifactReader streams r into the artifact store without holding it
// in memory, for payloads too big to buffer (large query snapshots, files).
// Secret values are replaced on the way, as PutArtifact replaces them
// (redact.Reader: byte for byte, since a stream cannot be decoded first).
func (r *Run) PutArtifactReader(src io.Reader) (hashid.ID, int64, error) {
	st, err := r.Store()
	if err != nil {
		return hashid.ID{}, 0, err
	}
	return st.PutReader(redact.Reader(src))
}
