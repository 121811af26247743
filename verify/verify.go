package verify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
)

// Check names, in the order they are reported (docs/verify.md). The
// browser verifier of bundle.html uses the same names.
const (
	CheckBundle    = "bundle"    // the embedded evidence can be read
	CheckArtifacts = "artifacts" // every artifact re-hashes to its id
	CheckEvents    = "events"    // the sealed events form an intact chain
	CheckSeal      = "seal"      // the seal recomputed from the events matches
	CheckExpect    = "expect"    // the seal is the one given with --expect
	CheckPlan      = "plan"      // the plan is present and is the sealed plan
	CheckLedger    = "ledger"    // the evidence ledger is numbered and sealed
	CheckMetrics   = "metrics"   // every metric recomputes from its cited cells
	CheckEvidence  = "evidence"  // the report's embedded evidence is the sealed evidence
	CheckReport    = "report"    // the visible report is what the evidence renders to
	CheckPage      = "page"      // nothing else in the file was changed
	CheckSignature = "signature" // the seal signature, when there is one
	CheckPostSeal  = "post-seal" // events after the seal (never a failure)
	CheckCases     = "cases"     // an evaluation's in-memory case runs: chains and seals
)

// Check is one line of a verification.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Result is a verification: JSON exactly as docs/cli.md prints it.
type Result struct {
	OK     bool    `json:"ok"`
	Seal   string  `json:"seal"`
	Plan   string  `json:"plan"`
	Checks []Check `json:"checks"`
	// ByteExact says, for a bundle whose page was compared, whether the
	// file is byte for byte the export; false on a file that verifies
	// only as the same parsed document (docs/verify.md, "Bytes and
	// documents").
	ByteExact *bool `json:"byte_exact,omitempty"`
}

// Options of Verify.
type Options struct {
	// Expect pins the seal hash (b3:…) published somewhere trusted.
	Expect string
	// PublicKey, when set, is the key the seal must be signed with.
	PublicKey ed25519.PublicKey
	// PublicKeyName names the key in messages (the file it came from).
	PublicKeyName string
	// ArtifactsDir is the artifact store of a run directory ("" means
	// <data-dir>/artifacts two levels above it).
	ArtifactsDir string
	// MaxBytes caps the bundle file and events.jsonl (0: the verify cap in
	// force, fsutil.VerifyCap, DefaultMaxBytes unless configured).
	MaxBytes int64
	// Workers hashes artifacts of a run directory in parallel (0: GOMAXPROCS).
	Workers int
}

// UnreadableError is returned when the input cannot be verified at all:
// missing, not a bundle nor a run directory, over a size cap.
type UnreadableError struct{ Err error }

func (e *UnreadableError) Error() string { return e.Err.Error() }
func (e *UnreadableError) Unwrap() error { return e.Err }

// Verify checks a bundle.html or a run directory against its seal. It
// returns an *UnreadableError when path cannot be read as either.
func Verify(path string, opt Options) (*Result, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = fsutil.VerifyCap.Bytes()
	}
	if opt.Expect != "" {
		if _, err := hashid.Parse(opt.Expect); err != nil {
			return nil, &UnreadableError{fmt.Errorf("--expect %q: %v; give the seal as b3: and 64 hex digits", opt.Expect, err)}
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &UnreadableError{err}
	}
	if fi.IsDir() {
		return verifyRunDir(path, opt)
	}
	file, release, err := openBundleFile(path, opt.MaxBytes)
	if err != nil {
		return nil, &UnreadableError{err}
	}
	defer release()
	return verifyBundleFile(file, opt)
}

// verifier collects checks.
type verifier struct {
	intact bool   // the sealed events verify (checkChain)
	seal   string // the seal hash recomputed from the events, "" if none
	res    Result
	opt    Options
	failed map[string][]string
	notes  map[string][]string
	// pageDoc: the evidence checkEvidence loaded is the one the bundle's
	// page renders from (a sealed, intact chain with nothing after the
	// seal), so the page check need not parse and load the events again.
	pageDoc bool
}

func newVerifier(opt Options) *verifier {
	return &verifier{opt: opt, failed: map[string][]string{}, notes: map[string][]string{}}
}

func (v *verifier) fail(name, format string, args ...any) {
	v.failed[name] = append(v.failed[name], fmt.Sprintf(format, args...))
}

func (v *verifier) note(name, format string, args ...any) {
	v.notes[name] = append(v.notes[name], fmt.Sprintf(format, args...))
}

// done closes check name: failed when any failure was recorded, with the
// failures (at most 5 shown) as detail, else okDetail.
func (v *verifier) done(name, okDetail string) {
	fs := v.failed[name]
	if len(fs) == 0 {
		d := okDetail
		if n := v.notes[name]; len(n) > 0 {
			d += "; " + strings.Join(n, "; ")
		}
		v.res.Checks = append(v.res.Checks, Check{Name: name, OK: true, Detail: d})
		return
	}
	shown := fs
	if len(shown) > 5 {
		shown = append(append([]string{}, fs[:5]...), fmt.Sprintf("and %d more", len(fs)-5))
	}
	v.res.Checks = append(v.res.Checks, Check{Name: name, OK: false, Detail: strings.Join(shown, "; ")})
}

// checkOrder is the rank of each check in a result: checks are reported in
// this order (the order of the constants above, which the browser verifier
// follows too) whatever order they were completed in, so that a run
// directory can check its events while its artifacts are still hashing.
var checkOrder = map[string]int{
	CheckBundle: 0, CheckArtifacts: 1, CheckEvents: 2, CheckSeal: 3, CheckExpect: 4,
	CheckPlan: 5, CheckLedger: 6, CheckMetrics: 7, CheckEvidence: 8, CheckReport: 9,
	CheckPage: 10, CheckSignature: 11, CheckPostSeal: 12, CheckCases: 13,
}

func (v *verifier) finish() *Result {
	sort.SliceStable(v.res.Checks, func(i, j int) bool {
		return checkOrder[v.res.Checks[i].Name] < checkOrder[v.res.Checks[j].Name]
	})
	v.res.OK = true
	for _, c := range v.res.Checks {
		if !c.OK {
			v.res.OK = false
		}
	}
	return &v.res
}

// VerifyBundle checks the bytes of a bundle.html.
func VerifyBundle(file []byte, opt Options) (*Result, error) {
	if opt.MaxBytes > 0 && int64(len(file)) > opt.MaxBytes {
		return nil, &UnreadableError{fmt.Errorf("the bundle is %d bytes, over the limit of %d", len(file), opt.MaxBytes)}
	}
	b, probs, err := scanBundle(file)
	if err != nil {
		return nil, &UnreadableError{err}
	}
	v := newVerifier(opt)
	v.res.Seal, v.res.Plan = b.m.SealHash, b.m.Seal.Plan
	for _, p := range probs {
		v.fail(CheckBundle, "%s", p)
	}
	v.done(CheckBundle, fmt.Sprintf("format %d, %d events, %d artifacts", b.m.Format, len(b.m.Events), len(b.order)))

	// artifacts
	for _, id := range b.order {
		h, err := hashid.Parse(id)
		if err != nil {
			v.fail(CheckArtifacts, "artifact id %q is not a hash id", id)
			continue
		}
		if got := b.sum(id); got != h {
			v.fail(CheckArtifacts, "artifact %s is altered: its bytes hash to %s", h.Short(), got.Short())
		}
	}
	v.done(CheckArtifacts, fmt.Sprintf("%d artifacts re-hashed", len(b.order)))

	// events
	for i, l := range b.m.Events {
		if jsonDepth([]byte(l)) > MaxJSONDepth {
			v.fail(CheckEvents, "event line %d is nested deeper than %d", i+1, MaxJSONDepth)
			b.m.Events = b.m.Events[:i]
			break
		}
	}
	var buf bytes.Buffer
	for _, l := range b.m.Events {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	evs, cprobs, torn, lines, perr := parseLog("bundle events", buf.Bytes(), opt.Workers)
	if perr == nil && torn != nil {
		perr = fmt.Errorf("the last embedded event is not a whole event")
	}
	if perr != nil {
		v.fail(CheckEvents, "%v", perr)
	}
	v.checkChain(b.m.Run, evs, cprobs, lines)

	has := b.has
	v.checkEmbedded(b, evs)
	v.checkSeal(b.m.Run, b.m.SealHash, &b.m.Seal, evs, has)
	v.checkPlan(&b.m.Seal, evs, b.get)
	doc := v.checkEvidence(b.m.Run, evs, b.get, b.m.Seal.Artifacts)

	// the page: evidence block, visible report, everything else
	if end := chain.SealedPrefix(evs); v.intact && v.seal != "" && end >= 0 && end == len(evs)-1 {
		v.pageDoc = true
	}
	if doc != nil && perr == nil {
		v.checkPage(file, b, doc)
	} else {
		v.fail(CheckEvidence, "not compared: the evidence could not be loaded")
		v.fail(CheckReport, "not compared: the evidence could not be loaded")
	}
	v.done(CheckEvidence, "the embedded report data is the sealed evidence")
	v.done(CheckReport, "the visible report is exactly what the sealed evidence renders to")
	v.done(CheckPage, "no other part of the file was changed")

	var sig *Signature
	if b.m.Signature != nil {
		sig = b.m.Signature
	}
	v.checkSignature(b.m.SealHash, sig)
	v.checkPostSeal(evs)
	return v.finish(), nil
}

// checkChain verifies the sealed prefix of the events.
func (v *verifier) checkChain(run string, evs []chain.Event, parse []chain.Problem, lines [][]byte) {
	end := chain.SealedPrefix(evs)
	sealed := evs
	if end >= 0 {
		sealed = evs[:end+1]
	} else {
		v.fail(CheckEvents, "no run.finished event: the run is not sealed")
	}
	var lastSeq int64
	if len(sealed) > 0 {
		lastSeq = sealed[len(sealed)-1].Seq
	}
	for _, p := range parse {
		if end < 0 || p.Seq <= lastSeq {
			v.fail(CheckEvents, "%s", p)
		}
	}
	v.intact = len(parse) == 0 && end >= 0 && chainIntact(run, sealed, lines, v.opt.Workers)
	if !v.intact {
		for _, p := range chain.VerifyChain(run, sealed) {
			v.fail(CheckEvents, "%s", p)
		}
	}
	v.done(CheckEvents, fmt.Sprintf("%d sealed events, chain intact", len(sealed)))
}

// checkSeal recomputes the seal from the events and compares.
func (v *verifier) checkSeal(run, sealHash string, claimed *chain.Seal, evs []chain.Event, has func(string) bool) {
	got := v.recomputeSeal(run, sealHash, claimed, evs)
	v.closeSeal(sealHash, got, claimed, has)
}

// recomputeSeal recomputes the seal from the events and compares it with
// the recorded one (claimed, not nil); it returns the recomputed seal
// hash, or "" when the events do not seal. It needs nothing from the
// artifacts, so a run directory calls it while they are hashed; closeSeal
// then finishes the check.
func (v *verifier) recomputeSeal(run, sealHash string, claimed *chain.Seal, evs []chain.Event) string {
	got, err := computeSeal(run, claimed.Plan, evs, v.intact, v.opt.Workers)
	var gotHash string
	if err != nil {
		if !errors.Is(err, chain.ErrNotFinished) || len(v.failed[CheckSeal]) == 0 {
			v.fail(CheckSeal, "cannot recompute the seal: %v", err)
		}
	} else {
		h, _ := got.Hash()
		gotHash = h.String()
		v.seal = gotHash
		ch, _ := claimed.Hash()
		switch {
		case ch.String() != sealHash:
			v.fail(CheckSeal, "the recorded seal object hashes to %s, not to the recorded seal %s", ch.Short(), short(sealHash))
		case gotHash != sealHash:
			v.fail(CheckSeal, "the events seal to %s, but the recorded seal is %s (%s)", h.Short(), short(sealHash), sealDiff(claimed, &got))
		}
	}
	return gotHash
}

// closeSeal checks that every sealed artifact is present (has) and closes
// the seal check and the --expect check; gotHash is what recomputeSeal
// returned.
func (v *verifier) closeSeal(sealHash, gotHash string, claimed *chain.Seal, has func(string) bool) {
	for _, a := range claimed.Artifacts {
		if !has(a) {
			v.fail(CheckSeal, "sealed artifact %s is missing or altered (see the artifacts check)", short(a))
		}
	}
	v.done(CheckSeal, fmt.Sprintf("seal %s over events 1-%d and %d artifacts", sealHash, claimed.Seq, len(claimed.Artifacts)))
	if v.opt.Expect != "" {
		if sealHash != v.opt.Expect || gotHash != v.opt.Expect {
			v.fail(CheckExpect, "the seal is %s, not the expected %s", sealHash, v.opt.Expect)
		}
		v.done(CheckExpect, "the seal is the expected "+v.opt.Expect)
	}
}

func sealDiff(a, b *chain.Seal) string {
	switch {
	case a.Run != b.Run:
		return "run id differs"
	case a.Head != b.Head || a.Seq != b.Seq:
		return fmt.Sprintf("head: recorded event %d %s, events give event %d %s", a.Seq, short(a.Head), b.Seq, short(b.Head))
	case strings.Join(a.Artifacts, ",") != strings.Join(b.Artifacts, ","):
		return "the artifact list differs"
	}
	return "the plan differs"
}

func short(s string) string {
	if id, err := hashid.Parse(s); err == nil {
		return id.Short()
	}
	return fmt.Sprintf("%q", s)
}

// checkPlan checks that the sealed plan is present and that the run
// started under it.
func (v *verifier) checkPlan(seal *chain.Seal, evs []chain.Event, get func(hashid.ID) ([]byte, error)) {
	id, err := hashid.Parse(seal.Plan)
	if err != nil {
		v.fail(CheckPlan, "the seal's plan %q is not a hash id", seal.Plan)
		v.done(CheckPlan, "")
		return
	}
	if b, err := get(id); err != nil {
		v.fail(CheckPlan, "plan %s: %v", id.Short(), err)
	} else if !json.Valid(b) {
		v.fail(CheckPlan, "plan %s is not JSON", id.Short())
	}
	if end := chain.SealedPrefix(evs); end >= 0 {
		evs = evs[:end+1]
	}
	started := ""
	for _, e := range evs {
		if e.Type == chain.TypeRunStarted {
			var d struct {
				Plan string `json:"plan"`
			}
			_ = json.Unmarshal(e.Data, &d)
			started = d.Plan
			break
		}
	}
	ok := true
	if p, _ := render.RunPlan(evs); p != seal.Plan {
		ok = false
		what := "run.started names"
		if p != started {
			what = "run.resumed names"
		}
		v.fail(CheckPlan, "the events run under plan %s (%s it), not the seal plan %s", short(p), what, id.Short())
	}
	if ok && started != seal.Plan {
		v.note(CheckPlan, "resumed under it; started under plan %s", short(started))
	}
	v.done(CheckPlan, "plan "+seal.Plan)
}

// checkEvidence loads the report's evidence and checks the ledger and the
// metrics; it returns the loaded document, or nil.
func (v *verifier) checkEvidence(run string, evs []chain.Event, get func(hashid.ID) ([]byte, error), sealed []string) *render.Doc {
	inSeal := map[string]bool{}
	for _, a := range sealed {
		inSeal[a] = true
	}
	doc, err := render.LoadSealed(run, v.sealFor(evs), render.ReportEvents(evs), get)
	if err != nil {
		v.fail(CheckLedger, "cannot load the evidence: %v", err)
		v.done(CheckLedger, "")
		v.fail(CheckMetrics, "not checked: the evidence could not be loaded")
		v.done(CheckMetrics, "")
		return nil
	}
	q, k := 0, 0
	for _, e := range doc.Ledger {
		want := ""
		switch e.Kind {
		case evidence.KindQuery:
			q++
			want = fmt.Sprintf("Q%d", q)
		case evidence.KindKnowledge:
			k++
			want = fmt.Sprintf("K%d", k)
		}
		if e.ID != want {
			v.fail(CheckLedger, "evidence %s is out of order (expected %s)", e.ID, want)
		}
		if !inSeal[e.Artifact] {
			v.fail(CheckLedger, "evidence %s: artifact %s is not under the seal", e.ID, short(e.Artifact))
		}
	}
	for _, s := range doc.Snapshots {
		checkCanonical(v, CheckLedger, "snapshot "+s.ID, s.Artifact, s.Raw)
	}
	for _, h := range doc.Hits {
		checkCanonical(v, CheckLedger, "knowledge hit "+h.ID, h.Artifact, h.Raw)
	}
	v.done(CheckLedger, fmt.Sprintf("%d entries (%d queries, %d knowledge hits)", len(doc.Ledger), q, k))

	n := 0
	for _, ms := range doc.MetricSets {
		checkCanonical(v, CheckMetrics, "metric set of node "+ms.Node, ms.Artifact, ms.Raw)
		for i := range ms.Set.Metrics {
			n++
			v.checkMetric(doc, ms.Node, &ms.Set.Metrics[i])
		}
	}
	for _, r := range doc.Reports {
		checkCanonical(v, CheckMetrics, "report of node "+r.Node, r.Artifact, r.Raw)
	}
	v.done(CheckMetrics, fmt.Sprintf("%d metrics recomputed from their cited cells", n))
	return doc
}

// sealFor is the seal hash the renderer shows: the recomputed seal when
// the events run under the plan it was computed under (render.RunPlan), as
// render.LoadRun would compute it.
func (v *verifier) sealFor(evs []chain.Event) string {
	if v.seal == "" {
		return ""
	}
	if end := chain.SealedPrefix(evs); end >= 0 {
		evs = evs[:end+1]
	}
	if p, ok := render.RunPlan(evs); ok && p == v.res.Plan {
		return v.seal
	}
	return ""
}

// checkCanonical: evidence artifacts are canonical JSON, so that the
// browser, which re-serialises what it parsed, hashes the same bytes.
func checkCanonical(v *verifier, check, what, id string, raw []byte) {
	if c, err := canonicalize(raw); err != nil || !bytes.Equal(c, raw) {
		v.fail(check, "%s (artifact %s) is not canonical JSON", what, short(id))
	}
}

func (v *verifier) checkMetric(doc *render.Doc, set string, mv *evidence.MetricValue) {
	name := "metric " + mv.Name + " (node " + set + ")"
	if mv.Value == nil {
		if _, err := render.Calc(mv.Substituted); err == nil && mv.Error == "" {
			v.fail(CheckMetrics, "%s has no value but its formula %q computes", name, mv.Substituted)
		}
	} else {
		got, err := render.Calc(mv.Substituted)
		switch {
		case err != nil:
			v.fail(CheckMetrics, "%s: cannot recompute %q: %v", name, mv.Substituted, err)
		case !render.SameValue(got, *mv.Value):
			v.fail(CheckMetrics, "%s: %q recomputes to %s, but the recorded value is %s", name, mv.Substituted, render.FormatCell(got), render.FormatCell(*mv.Value))
		}
	}
	for _, c := range mv.Cells {
		s := doc.Snapshot(c.Snapshot)
		if s == nil {
			v.fail(CheckMetrics, "%s cites snapshot %s, which is not in the ledger", name, c.Snapshot)
			continue
		}
		if c.Row == -1 && c.Column == "" {
			if !sameCell(c.Value, int64(len(s.Snap.Rows))) {
				v.fail(CheckMetrics, "%s cites %s rows of %s, the snapshot has %d", name, render.FormatCell(c.Value), c.Snapshot, len(s.Snap.Rows))
			}
			continue
		}
		j := -1
		for x, col := range s.Snap.Columns {
			if col == c.Column {
				j = x
			}
		}
		if j < 0 || c.Row < 0 || c.Row >= len(s.Snap.Rows) {
			v.fail(CheckMetrics, "%s cites %s row %d column %q, which does not exist", name, c.Snapshot, c.Row, c.Column)
			continue
		}
		if got := s.Snap.Rows[c.Row][j]; !sameCell(c.Value, got) {
			v.fail(CheckMetrics, "%s cites %s row %d %s = %s, but the snapshot holds %s", name, c.Snapshot, c.Row, c.Column, render.FormatCell(c.Value), render.FormatCell(got))
		}
	}
}

// sameCell compares a cited value (decoded from JSON) with a snapshot cell.
func sameCell(cited, cell any) bool {
	num := func(x any) (float64, bool) {
		switch n := x.(type) {
		case float64:
			return n, true
		case int64:
			return float64(n), true
		case int:
			return float64(n), true
		case json.Number:
			f, err := n.Float64()
			return f, err == nil
		}
		return 0, false
	}
	if a, ok := num(cited); ok {
		b, ok := num(cell)
		return ok && a == b
	}
	return cited == cell
}

// checkEmbedded holds a bundle to the artifacts its writer embeds: the
// sealed ones, the plan and the inputs run.started names — no more, and
// not without the inputs (the page re-renders from what is embedded, so
// a removed block would otherwise go unnoticed). Its failures belong to
// the seal check.
func (v *verifier) checkEmbedded(b *bundle, evs []chain.Event) {
	want := map[string]bool{b.m.Seal.Plan: true}
	for _, a := range b.m.Seal.Artifacts {
		want[a] = true
	}
	sealed := map[string]bool{}
	for k := range want {
		sealed[k] = true
	}
	if ih := inputsHash(evs); ih != "" {
		want[ih] = true
		if !b.has(ih) && !sealed[ih] {
			v.fail(CheckSeal, "the inputs artifact %s that run.started names is not in the bundle", short(ih))
		}
	}
	for _, id := range b.order {
		if !want[id] {
			v.fail(CheckSeal, "artifact %s is embedded but is neither sealed nor the plan or the inputs", short(id))
		}
	}
}

// checkPage regenerates the bundle from its embedded content and compares
// it with the file, attributing a difference to the evidence block, the
// visible report or the rest of the page.
func (v *verifier) checkPage(file []byte, b *bundle, doc *render.Doc) {
	// The usual case, a bundle as written, is settled by rendering it into
	// a comparison with the file, holding one artifact at a time; only a
	// difference renders the whole page, to say where it is.
	same := &sameAs{file: file}
	var err error
	if v.pageDoc {
		err = b.writePageDoc(same, doc)
	} else {
		err = b.writePage(same)
	}
	if err != nil {
		v.fail(CheckPage, "cannot render the bundle again: %v", err)
		return
	}
	if same.whole() {
		exact := true
		v.res.ByteExact = &exact
		return
	}
	want, err := b.page()
	if err != nil {
		v.fail(CheckPage, "cannot render the bundle again: %v", err)
		return
	}
	exact := bytes.Equal(want, file)
	v.res.ByteExact = &exact
	if exact {
		return
	}
	if sameDocument(file, want) {
		v.note(CheckPage, "%s", parsedSameNote)
		return
	}
	data, _ := doc.Data()
	gotData, okD := cut(file, `<script type="application/json" id="al-data">`, "</script>")
	if !okD || !bytes.Equal(gotData, data) {
		v.fail(CheckEvidence, "the report data embedded in the page (al-data) differs from the sealed evidence%s", firstDiff(gotData, data))
	}
	body := render.Body(doc)
	gotBody, okB := cut(file, render.BeginReport, render.EndReport)
	if !okB {
		v.fail(CheckReport, "the visible report is missing or its markers were removed")
	} else if !bytes.Equal(gotBody, body) {
		v.fail(CheckReport, "%s", describeReportDiff(gotBody, body))
	}
	// the rest: replace both regions and compare
	if okD && okB && len(v.failed[CheckEvidence])+len(v.failed[CheckReport]) > 0 {
		fixed := bytes.Replace(file, gotBody, body, 1)
		fixed = bytes.Replace(fixed, gotData, data, 1)
		if bytes.Equal(fixed, want) {
			return
		}
		file = fixed
	}
	if !bytes.Equal(file, want) {
		off := diffAt(file, want)
		v.fail(CheckPage, "the file differs from the bundle its evidence renders to at byte %d (line %d): %s", off, bytes.Count(file[:min(off, len(file))], []byte("\n"))+1, excerpt(file, off))
	}
}

func cut(b []byte, open, close string) ([]byte, bool) {
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return nil, false
	}
	rest := b[i+len(open):]
	j := bytes.Index(rest, []byte(close))
	if j < 0 {
		return nil, false
	}
	return rest[:j], true
}

func diffAt(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func excerpt(b []byte, off int) string {
	lo, hi := max(0, off-30), min(len(b), off+40)
	return fmt.Sprintf("%q", b[lo:hi])
}

func firstDiff(got, want []byte) string {
	off := diffAt(got, want)
	return fmt.Sprintf(" at byte %d: %s", off, excerpt(got, off))
}

// describeReportDiff names the report item at the first difference: the
// element carrying data-k that encloses it, with what the file shows and
// what the evidence renders.
func describeReportDiff(got, want []byte) string {
	off := diffAt(got, want)
	tag := bytes.LastIndex(got[:off], []byte("<"))
	if tag >= 0 {
		end := bytes.IndexByte(got[tag:], '>')
		if end > 0 && bytes.Contains(got[tag:tag+end], []byte("data-k=")) {
			attrs := string(got[tag : tag+end])
			shown := textAt(got, tag+end+1)
			wtag := bytes.LastIndex(want[:min(off, len(want))], []byte("<"))
			rendered := ""
			if wtag >= 0 {
				if we := bytes.IndexByte(want[wtag:], '>'); we > 0 {
					rendered = textAt(want, wtag+we+1)
				}
			}
			return fmt.Sprintf("report %s shows %q, but the sealed evidence renders %q", itemName(attrs), shown, rendered)
		}
	}
	return fmt.Sprintf("the visible report differs from what the sealed evidence renders to at byte %d: %s", off, excerpt(got, off))
}

func textAt(b []byte, i int) string {
	if i > len(b) {
		return ""
	}
	j := bytes.IndexByte(b[i:], '<')
	if j < 0 {
		j = len(b) - i
	}
	return htmlUnescape(string(b[i : i+j]))
}

// itemName turns the data-… attributes of a report element into a name:
// "number m:gmv", "cell Q1.r0.amount", "text at bytes 10-20 of brief".
func itemName(attrs string) string {
	get := func(k string) string {
		i := strings.Index(attrs, " "+k+"=\"")
		if i < 0 {
			return ""
		}
		rest := attrs[i+len(k)+3:]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return htmlUnescape(rest[:j])
		}
		return ""
	}
	switch get("data-k") {
	case "m":
		return "number m:" + get("data-n")
	case "v":
		return fmt.Sprintf("cell %s.r%s.%s", get("data-q"), get("data-r"), get("data-c"))
	case "i":
		return "input i:" + get("data-n")
	case "s":
		return fmt.Sprintf("text at bytes %s-%s", get("data-a"), get("data-b"))
	case "q":
		return "quotation from " + get("data-q")
	case "h":
		return fmt.Sprintf("column name %s.%s", get("data-q"), get("data-c"))
	case "t", "c":
		return "name " + get("data-n")
	case "f":
		return "field " + get("data-n")
	case "mf":
		return "formula of metric " + get("data-n")
	case "sql":
		return "SQL of " + get("data-q")
	}
	return "item " + get("data-k")
}

func htmlUnescape(s string) string {
	r := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&amp;", "&")
	return r.Replace(s)
}

// checkSignature checks the seal signature, if any.
func (v *verifier) checkSignature(sealHash string, sig *Signature) {
	switch {
	case sig == nil && v.opt.PublicKey != nil:
		v.fail(CheckSignature, "the seal is not signed, but a public key was given (%s)", v.opt.PublicKeyName)
	case sig == nil:
		v.done(CheckSignature, "not signed: integrity against the seal only; pin the seal with --expect or sign it")
		return
	default:
		if err := VerifySignature(sealHash, *sig, v.opt.PublicKey); err != nil {
			v.fail(CheckSignature, "%v", err)
		}
	}
	pub := ""
	if sig != nil {
		if raw, err := decodeB64(sig.PublicKey); err == nil {
			pub = KeyID(raw)
		}
	}
	if v.opt.PublicKey != nil {
		v.done(CheckSignature, "signed by the trusted key "+pub)
	} else {
		v.done(CheckSignature, "signed by the embedded key "+pub+"; give --pubkey to establish who signed")
	}
}

// checkPostSeal reports events after the seal; they never fail a check.
func (v *verifier) checkPostSeal(evs []chain.Event) {
	end := chain.SealedPrefix(evs)
	if end < 0 || end == len(evs)-1 {
		v.res.Checks = append(v.res.Checks, Check{Name: CheckPostSeal, OK: true, Detail: "no events after the seal"})
		return
	}
	var items []string
	for _, e := range evs[end+1:] {
		items = append(items, fmt.Sprintf("%d %s", e.Seq, e.Type))
	}
	if len(items) > 5 {
		items = append(items[:5], fmt.Sprintf("and %d more", len(evs)-end-6))
	}
	v.res.Checks = append(v.res.Checks, Check{Name: CheckPostSeal, OK: true,
		Detail: fmt.Sprintf("%d %s after the seal, not covered by it: %s", len(evs)-end-1, plural(len(evs)-end-1, "event"), strings.Join(items, ", "))})
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// verifyRunDir checks a run directory: run.json, events.jsonl and the
// artifacts in the store.
func verifyRunDir(dir string, opt Options) (*Result, error) {
	unreadable := func(err error) error {
		if _, serr := os.Stat(filepath.Join(dir, "events.jsonl")); errors.Is(err, os.ErrNotExist) && serr == nil {
			err = fmt.Errorf("%s has events.jsonl but no run.json (the run was stopped while starting): it is not sealed and cannot be verified", dir)
		} else if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("%s is neither a bundle nor a run directory (no run.json/events.jsonl): %w", dir, err)
		}
		return &UnreadableError{err}
	}
	rd, err := readRecord(dir, opt.ArtifactsDir)
	if err != nil {
		return nil, unreadable(err)
	}
	// the artifacts the record claims are hashed while the events are read
	// and checked: both use every core, and neither waits for the other
	claimed := rd.rec.SealData
	var ids []string
	if claimed != nil {
		ids = append(ids, claimed.Artifacts...)
		if claimed.Plan != "" {
			ids = append(ids, claimed.Plan)
		}
	}
	type hashed struct {
		ok   map[string]bool
		errs []error
	}
	hashDone := make(chan hashed, 1)
	go func() {
		ok, errs := hashAll(rd.artifacts, ids, opt.Workers, opt.MaxBytes)
		hashDone <- hashed{ok, errs}
	}()
	if err := rd.readEvents(opt.MaxBytes, opt.Workers); err != nil {
		<-hashDone
		return nil, unreadable(err)
	}
	v := newVerifier(opt)
	v.res.Seal, v.res.Plan = rd.rec.Seal, rd.rec.Plan
	if rd.torn != nil && chain.SealedPrefix(rd.events) < 0 {
		v.note(CheckBundle, "events.jsonl ends in an incomplete line of %d bytes (ignored)", rd.torn.Bytes)
	}
	v.checkRunDirFile(dir, rd)
	v.done(CheckBundle, fmt.Sprintf("run %s: %d events", rd.rec.ID, len(rd.events)))

	if claimed == nil || rd.rec.Seal == "" {
		status := rd.rec.Status
		if status == "" {
			status = "unknown"
		}
		why := "run.json records no seal"
		if chain.SealedPrefix(rd.events) < 0 {
			why += " and no run.finished event was recorded; a run is sealed only when it finishes (agentlab resume continues it)"
		}
		v.fail(CheckSeal, "run %s is not sealed (status %s): %s", rd.rec.ID, status, why)
		claimed = &chain.Seal{Plan: rd.rec.Plan}
	}
	// Every check on the events runs while the artifacts hash: only the
	// artifacts check and the seal's "every sealed artifact is present"
	// need the hashes. finish reports the checks in their usual order.
	v.checkChain(rd.rec.ID, rd.events, rd.problems, rd.lines)
	gotSeal := v.recomputeSeal(rd.rec.ID, rd.rec.Seal, claimed, rd.events)
	get := func(id hashid.ID) ([]byte, error) { return getFile(rd.artifacts, id, 1<<30) }
	v.checkRunDirPlan(rd, claimed)
	v.checkPlan(claimed, rd.events, get)
	v.checkRunDirInputs(rd.events, get)
	v.checkCaseRuns(rd.events, func(id hashid.ID, max int64) ([]byte, error) { return getFile(rd.artifacts, id, max) }, claimed.Artifacts, opt.MaxBytes)
	doc := v.checkEvidence(rd.rec.ID, rd.events, get, claimed.Artifacts)
	if doc != nil && rd.rec.Report != "" {
		p := rd.rec.Report
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := readCapped(p, opt.MaxBytes)
		switch {
		case errors.Is(err, os.ErrNotExist):
			// no report written: nothing to compare
		case err != nil:
			// a report path that exists but cannot be compared (a device,
			// a directory, over the cap, changed while read) is a failure,
			// not a check left out
			v.fail(CheckReport, "cannot read the report %s: %v", p, err)
			v.done(CheckReport, p)
		default:
			want, err := render.HTML(doc)
			switch {
			case err != nil:
				v.fail(CheckReport, "cannot render the report: %v", err)
			case !bytes.Equal(b, want):
				gotBody, _ := cut(b, render.BeginReport, render.EndReport)
				v.fail(CheckReport, "%s: %s", p, describeReportDiff(gotBody, render.Body(doc)))
			}
			v.done(CheckReport, p+" is exactly what the sealed evidence renders to")
		}
	}
	h := <-hashDone
	for _, err := range h.errs {
		v.fail(CheckArtifacts, "%v", err)
	}
	v.done(CheckArtifacts, fmt.Sprintf("%d artifacts re-hashed in %s", len(ids), rd.artifacts))
	v.closeSeal(rd.rec.Seal, gotSeal, claimed, func(id string) bool { return h.ok[id] })
	var sig *Signature
	if rd.rec.Signature != "" {
		sig = &Signature{Alg: "ed25519", Sig: rd.rec.Signature, PublicKey: rd.rec.PublicKey}
	}
	v.checkSignature(rd.rec.Seal, sig)
	v.checkPostSeal(rd.events)
	return v.finish(), nil
}
