package verify

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

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

// bundle is the content of bundle.html.
type bundle struct {
	m     manifest
	arts  map[string][]byte
	order []string // artifact ids, sorted
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
	page, err := b.page()
	if err != nil {
		return err
	}
	_, err = w.Write(page)
	return err
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
	sort.Strings(b.order)
}

// get serves artifacts from the bundle, re-hashing each one.
func (b *bundle) get(id hashid.ID) ([]byte, error) {
	data, ok := b.arts[id.String()]
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
	evs, _, err := b.events()
	if err != nil {
		return nil, err
	}
	doc, err := render.LoadRun(b.m.Run, evs, b.get)
	if err != nil {
		return nil, err
	}
	data, err := doc.Data()
	if err != nil {
		return nil, err
	}
	after, err := b.evidenceHTML()
	if err != nil {
		return nil, err
	}
	return render.Assemble(render.Page{Title: "Bundle: " + doc.Title(), Before: pendingHTML, Body: render.Body(doc), Data: data, After: after, Script: BundleScript()}), nil
}

func (b *bundle) evidenceHTML() (string, error) {
	var s strings.Builder
	mj, err := json.Marshal(b.m)
	if err != nil {
		return "", err
	}
	s.WriteString(manifestOpen)
	s.Write(mj)
	s.WriteString(scriptClose)
	for _, id := range b.order {
		a := artifact{ID: id}
		data := b.arts[id]
		if utf8.Valid(data) {
			t := string(data)
			a.Text = &t
		} else {
			e := base64.StdEncoding.EncodeToString(data)
			a.B64 = &e
		}
		aj, err := json.Marshal(a)
		if err != nil {
			return "", err
		}
		s.WriteString(artifactOpen)
		s.Write(aj)
		s.WriteString(scriptClose)
	}
	return s.String(), nil
}

// Limits applied when reading a bundle, so that a crafted file cannot
// exhaust the verifier.
const (
	DefaultMaxBytes = 2 << 30 // the whole file
	MaxJSONDepth    = 200     // nesting of any embedded JSON value
	MaxEvents       = 10_000_000
	MaxArtifacts    = 1_000_000
)

// errNotBundle marks a file that is not a bundle at all (exit 2).
var errNotBundle = errors.New("not an agentlab bundle")

// parseBundle reads the embedded evidence of a bundle.html. A file
// without the manifest block is not a bundle (errNotBundle); a damaged
// block is returned as a problem, with as much as could be read.
func parseBundle(file []byte) (*bundle, []string, error) {
	var probs []string
	i := bytes.Index(file, []byte(manifestOpen))
	if i < 0 {
		return nil, nil, errNotBundle
	}
	b := &bundle{arts: map[string][]byte{}}
	rest := file[i+len(manifestOpen):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		return nil, nil, fmt.Errorf("%w: the manifest block is not closed", errNotBundle)
	}
	if err := decodeCapped(rest[:j], &b.m); err != nil {
		probs = append(probs, "the embedded manifest (al-bundle) is unreadable: "+err.Error())
	}
	if b.m.Format != BundleFormat && len(probs) == 0 {
		probs = append(probs, fmt.Sprintf("bundle format %d is not %d; use a matching agentlab", b.m.Format, BundleFormat))
	}
	if len(b.m.Events) > MaxEvents {
		return nil, nil, fmt.Errorf("the bundle has %d events, over the limit of %d", len(b.m.Events), MaxEvents)
	}
	rest = rest[j:]
	n := 0
	for {
		k := bytes.Index(rest, []byte(artifactOpen))
		if k < 0 {
			break
		}
		if n++; n > MaxArtifacts {
			return nil, nil, fmt.Errorf("the bundle has over %d artifacts", MaxArtifacts)
		}
		rest = rest[k+len(artifactOpen):]
		e := bytes.Index(rest, []byte("</script>"))
		if e < 0 {
			probs = append(probs, fmt.Sprintf("embedded artifact block %d is not closed", n))
			break
		}
		var a artifact
		if err := decodeCapped(rest[:e], &a); err != nil {
			probs = append(probs, fmt.Sprintf("embedded artifact block %d is unreadable: %v", n, err))
			rest = rest[e:]
			continue
		}
		var data []byte
		switch {
		case a.Text != nil && a.B64 == nil:
			data = []byte(*a.Text)
		case a.B64 != nil && a.Text == nil:
			d, err := base64.StdEncoding.DecodeString(*a.B64)
			if err != nil {
				probs = append(probs, fmt.Sprintf("artifact %s: base64: %v", a.ID, err))
			}
			data = d
		default:
			probs = append(probs, fmt.Sprintf("embedded artifact block %d (%s) needs exactly one of text and b64", n, a.ID))
		}
		if _, dup := b.arts[a.ID]; dup {
			probs = append(probs, fmt.Sprintf("artifact %s is embedded twice", a.ID))
		}
		b.arts[a.ID] = data
		rest = rest[e:]
	}
	b.sortArtifacts()
	return b, probs, nil
}

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
