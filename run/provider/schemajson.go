package provider

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaAttempts is how many differently-chosen values the mock generates
// before giving up on finding one the schema accepts.
const schemaAttempts = 8

// maxRetryBytes stops the retries for outputs this large: the schema asks
// for more than the generator's caps (1000 items, 1000 characters) allow.
const maxRetryBytes = 1 << 16

// normalizeSchema re-reads a schema through canonical JSON so that values
// decoded from YAML (int, uint64, nested maps) have the JSON forms the
// generator and the validator expect. It also returns the canonical bytes.
func normalizeSchema(s map[string]any) (any, []byte, error) {
	b, err := canon.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("output schema is not JSON: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	return doc, b, nil
}

// schemaCache keeps compiled schemas by the hash of their canonical bytes:
// an agent or an eval suite asks for the same schema many times.
var schemaCache = struct {
	sync.Mutex
	m map[hashid.ID]*jsonschema.Schema
}{m: map[hashid.ID]*jsonschema.Schema{}}

const schemaCacheMax = 256

// compileSchema compiles doc (with format assertions on, so generated
// dates and e-mail addresses are checked too). A schema the validator
// rejects yields an error; the mock then answers unvalidated.
func compileSchema(doc any, canonical []byte) (*jsonschema.Schema, error) {
	key := hashid.Sum(canonical)
	schemaCache.Lock()
	sch, ok := schemaCache.m[key]
	schemaCache.Unlock()
	if ok {
		return sch, nil
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "mem:///output-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, err
	}
	schemaCache.Lock()
	if len(schemaCache.m) >= schemaCacheMax {
		clear(schemaCache.m)
	}
	schemaCache.m[key] = sch
	schemaCache.Unlock()
	return sch, nil
}

// validJSON reports whether the JSON text b is valid against sch.
func validJSON(sch *jsonschema.Schema, b []byte) bool {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return false
	}
	return sch.Validate(inst) == nil
}

// generateJSON writes canonical JSON text for schema, trying up to
// schemaAttempts variations until one validates. When none does (an
// unsatisfiable or exotic schema) the first attempt is returned and the
// engine's own validation reports the problem.
func generateJSON(r *rng, schema map[string]any, setup func(*schemaGen)) (string, error) {
	doc, canonical, err := normalizeSchema(schema)
	if err != nil {
		return "", err
	}
	sch, _ := compileSchema(doc, canonical)
	var first []byte
	for attempt := 0; attempt < schemaAttempts; attempt++ {
		g := &schemaGen{r: r, root: doc, attempt: attempt}
		if setup != nil {
			setup(g)
		}
		b, err := canon.Marshal(g.gen(doc, "", 0))
		if err != nil {
			return "", err
		}
		if sch == nil || validJSON(sch, b) {
			return string(b), nil
		}
		if first == nil {
			first = b
		}
		if len(b) > maxRetryBytes {
			break // a schema asking for this much is not worth retrying
		}
	}
	return string(first), nil
}

// regexpCache holds patternProperties expressions.
var regexpCache sync.Map // string → *regexp.Regexp or error

func compileCachedRegexp(pat string) (*regexp.Regexp, error) {
	if v, ok := regexpCache.Load(pat); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		regexpCache.Store(pat, err)
		return nil, err
	}
	regexpCache.Store(pat, re)
	return re, nil
}
