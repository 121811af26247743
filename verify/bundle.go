package verify

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence/render"
	"github.com/agentlab/agentlab/hashid"
)

//go:embed assets/verify.js
var verifyJS string

// BundleFormat is the current format of bundle.html (docs/verify.md).
const BundleFormat = 1

// Element markers of the embedded evidence. Each block is the JSON text of
// one value with "<", ">" and "&" escaped as \u003c…, so no data can close
// the <script> element early.
const (
	manifestOpen = `<script type="application/json" id="al-bundle">`
	artifactOpen = `<script type="application/json" class="al-artifact">`
	scriptClose  = "</script>\n"
)

// manifest is the al-bundle block: everything but the artifacts.
type manifest struct {
	Format    int        `json:"format"`
	Run       string     `json:"run"`
	SealHash  string     `json:"seal_hash"`
	Seal      chain.Seal `json:"seal"`
	Events    []string   `json:"events"` // the lines of events.jsonl, post-seal ones included
	Signature *Signature `json:"signature,omitempty"`
}

// artifact is one al-artifact block: UTF-8 text when the bytes are valid
// UTF-8, else base64.
type artifact struct {
	ID   string  `json:"id"`
	Text *string `json:"text,omitempty"`
	B64  *string `json:"b64,omitempty"`
}

// bundle is the content of bundle.html. The artifacts of a bundle being
// written, or edited, are held in arts; those of a bundle being verified
// stay in the file as blocks, with their hashes in sums (bundle_read.go).
type bundle struct {
	m         manifest
	arts      map[string][]byte
	blocks    map[string][]byte
	sums      map[string]hashid.ID
	canonical map[string]bool
	order     []string // artifact ids, sorted
}

// BundleOptions says where a run's artifacts are and how to sign.
type BundleOptions struct {
	// ArtifactsDir is the artifact store; "" means <data-dir>/artifacts
	// two levels above the run directory.
	ArtifactsDir string
	// Signature, when set, replaces the signature recorded in run.json.
	Signature *Signature
	// MaxArtifactBytes caps each artifact read (0: 1 GiB).
	MaxArtifactBytes int64
}

// WriteBundle writes bundle.html for the sealed run in runDir: the readable
// report, the plan, the sealed events (and any after the seal), every
// artifact the seal lists plus the plan and the inputs, the ledger, the seal
// and its signature, and the script that re-checks it all in the browser.
// The same run gives the same bytes.
func WriteBundle(w io.Writer, runDir string, opt BundleOptions) error {
	max := opt.MaxArtifactBytes
	if max <= 0 {
		max = 1 << 30
	}
	rd, err := readRunDir(runDir, opt.ArtifactsDir, 1<<40, 0)
	if err != nil {
		return err
	}
	if rd.torn != nil {
		return fmt.Errorf("run %s: events.jsonl ends in an incomplete line; resume or repair the run first", rd.rec.ID)
	}
	seal, err := chain.ComputeSeal(rd.rec.ID, rd.rec.Plan, rd.events)
	if err != nil {
		return fmt.Errorf("run %s is not sealed: %w", rd.rec.ID, err)
	}
	sh, err := seal.Hash()
	if err != nil {
		return err
	}
	if rd.rec.Seal != "" && rd.rec.Seal != sh.String() {
		return fmt.Errorf("run %s: run.json records seal %s but the events seal to %s; verify the run", rd.rec.ID, rd.rec.Seal, sh)
	}
	b := &bundle{m: manifest{Format: BundleFormat, Run: rd.rec.ID, SealHash: sh.String(), Seal: seal}, arts: map[string][]byte{}}
	if opt.Signature != nil {
		b.m.Signature = opt.Signature
	} else if rd.rec.Signature != "" {
		b.m.Signature = &Signature{Alg: "ed25519", Sig: rd.rec.Signature, PublicKey: rd.rec.PublicKey}
	}
	for _, e := range rd.events {
		line, err := e.Line()
		if err != nil {
			return err
		}
		b.m.Events = append(b.m.Events, string(line))
	}
	want := append([]string{}, seal.Artifacts...)
	want = append(want, seal.Plan)
	if ih := inputsHash(rd.events); ih != "" {
		want = append(want, ih) // a bundle without its inputs does not verify
	}
	for _, s := range want {
		if _, ok := b.arts[s]; ok {
			continue
		}
		id, err := hashid.Parse(s)
		if err != nil {
			return err
		}
		data, err := getFile(rd.artifacts, id, max)
		if err != nil {
			return fmt.Errorf("run %s: %w", rd.rec.ID, err)
		}
		b.arts[s] = data
	}
	b.sortArtifacts()
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := b.writePage(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// inputsHash is the inputs_hash of run.started, if any.
func inputsHash(evs []chain.Event) string {
	for _, e := range evs {
		if e.Type != chain.TypeRunStarted {
			continue
		}
		var d struct {
			InputsHash string `json:"inputs_hash"`
		}
		_ = json.Unmarshal(e.Data, &d)
		return d.InputsHash
	}
	return ""
}

func (b *bundle) sortArtifacts() {
	b.order = b.order[:0]
	for id := range b.arts {
		b.order = append(b.order, id)
	}
	for id := range b.blocks {
		if _, dup := b.arts[id]; !dup {
			b.order = append(b.order, id)
		}
	}
	sort.Strings(b.order)
}

// get serves artifacts from the bundle, re-hashing each one.
func (b *bundle) get(id hashid.ID) ([]byte, error) {
	data, ok := b.artifactBytes(id.String())
	if !ok {
		return nil, fmt.Errorf("artifact %s is not in the bundle", id.Short())
	}
	if hashid.Sum(data) != id {
		return nil, fmt.Errorf("artifact %s is altered: its bytes hash to %s", id.Short(), hashid.Sum(data).Short())
	}
	return data, nil
}

// events parses the embedded event lines.
func (b *bundle) events() ([]chain.Event, []chain.Problem, error) {
	var buf bytes.Buffer
	for _, l := range b.m.Events {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	evs, probs, torn, err := chain.ParseLog("bundle events", buf.Bytes())
	if err == nil && torn != nil {
		err = fmt.Errorf("the last embedded event is not a whole event")
	}
	return evs, probs, err
}

//go:embed assets/page.js
var pageJS string

// BundleScript is the one inline script of bundle.html: BLAKE3, the report
// script, the page's style sheet, layout and notice, the renderer of the
// expected document and the verifier.
func BundleScript() string {
	css, _ := json.Marshal(render.CSS())
	layout, _ := json.Marshal(render.LayoutTemplate())
	pending, _ := json.Marshal(pendingHTML)
	return blake3JS + "\n" + render.ReportJS() + "\nvar AL_CSS = " + string(css) + ";\nvar AL_LAYOUT = " + string(layout) +
		";\nvar AL_PENDING = " + string(pending) + ";\n" + pageJS + verifyJS
}

// pendingHTML is what the file itself says: its verifier has not run
// (scripts off, or a script the policy refused), so the report that
// follows is an unverified copy. The verifier removes it, with that copy,
// and shows its own verdict.
const pendingHTML = `<section id="al-verdict" class="al-verdict" data-status="pending">
<h2>Not verified</h2>
<p id="al-verdict-text">This page has not checked itself: the report below is an unverified copy. The page checks itself only with scripts on, and shows its report only once every check passes. Or run: agentlab verify bundle.html</p>
</section>
`

// page renders the whole bundle.html from its content.
func (b *bundle) page() ([]byte, error) {
	var buf bytes.Buffer
	if err := b.writePage(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writePage writes the whole bundle.html to w, one artifact at a time, so
// that neither writing nor checking a bundle holds a second copy of it.
func (b *bundle) writePage(w io.Writer) error {
	evs, _, err := b.events()
	if err != nil {
		return err
	}
	doc, err := render.LoadRun(b.m.Run, evs, b.get)
	if err != nil {
		return err
	}
	return b.writePageDoc(w, doc)
}

// writePageDoc is writePage with the report's evidence already loaded.
func (b *bundle) writePageDoc(w io.Writer, doc *render.Doc) error {
	data, err := doc.Data()
	if err != nil {
		return err
	}
	// The page around the evidence, split where the evidence goes. Nothing
	// after that slot (the script, JSON-escaped where it holds the layout)
	// can contain the slot's NUL bytes, so its last occurrence is the slot.
	page := render.Assemble(render.Page{Title: "Bundle: " + doc.Title(), Before: pendingHTML, Body: render.Body(doc), Data: data, After: render.SlotAfter, Script: BundleScript()})
	at := bytes.LastIndex(page, []byte(render.SlotAfter))
	if _, err := w.Write(page[:at]); err != nil {
		return err
	}
	if err := b.writeEvidence(w); err != nil {
		return err
	}
	_, err = w.Write(page[at+len(render.SlotAfter):])
	return err
}

func (b *bundle) evidenceHTML() (string, error) {
	var s strings.Builder
	if err := b.writeEvidence(&s); err != nil {
		return "", err
	}
	return s.String(), nil
}

// writeEvidence writes the al-bundle block and one al-artifact block per
// artifact, in id order.
func (b *bundle) writeEvidence(w io.Writer) error {
	if _, err := io.WriteString(w, manifestOpen); err != nil {
		return err
	}
	if err := writeManifest(w, &b.m); err != nil {
		return err
	}
	if _, err := io.WriteString(w, scriptClose); err != nil {
		return err
	}
	for _, id := range b.order {
		if _, held := b.arts[id]; !held && b.canonical[id] {
			if _, err := io.WriteString(w, artifactOpen); err != nil {
				return err
			}
			if _, err := w.Write(b.blocks[id]); err != nil {
				return err
			}
			if _, err := io.WriteString(w, scriptClose); err != nil {
				return err
			}
			continue
		}
		data, _ := b.artifactBytes(id)
		if err := writeArtifactBlock(w, id, data); err != nil {
			return err
		}
	}
	return nil
}

// Limits applied when reading a bundle, so that a crafted file cannot
// exhaust the verifier.
const (
	DefaultMaxBytes = 2 << 30            // the whole file, unless fsutil.VerifyCap is configured
	MaxJSONDepth    = canon.MaxFastDepth // nesting of any embedded JSON value (the canonical readers' own limit)
	MaxEvents       = 10_000_000
	MaxArtifacts    = 1_000_000
)

// errNotBundle marks a file that is not a bundle at all (exit 2).
var errNotBundle = errors.New("not an agentlab bundle")

// decodeCapped decodes one JSON value after checking its nesting depth.
func decodeCapped(raw []byte, v any) error {
	if d := jsonDepth(raw); d > MaxJSONDepth {
		return fmt.Errorf("nested %d levels deep, over the limit of %d", d, MaxJSONDepth)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// jsonDepth returns the deepest nesting of [ and { outside strings; it
// stops counting at MaxJSONDepth+1.
func jsonDepth(b []byte) int {
	depth, max, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			depth++
			if depth > max {
				max = depth
				if max > MaxJSONDepth {
					return max
				}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return max
}
