package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// argSchema is a compiled argument schema.
type argSchema struct{ s *jsonschema.Schema }

// compileSchema compiles a tool's argument schema. The map is round-tripped
// through JSON first so that Go integers and typed slices in hand-written
// schemas become the JSON values the validator expects.
func compileSchema(name string, schema map[string]any) (*argSchema, error) {
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("schema of %s cannot be encoded: %w", name, err)
	}
	key := name + "\x00" + string(raw)
	if a, ok := compiled.Load(key); ok {
		return a.(*argSchema), nil
	}
	a, err := compileRaw(name, raw)
	if err != nil {
		return nil, err
	}
	if compiledCount.Add(1) <= maxCompiled {
		compiled.Store(key, a)
	}
	return a, nil
}

// compiled holds the schemas compiled so far in this process, by tool
// name and schema text: every run registers the same tools with the same
// schemas (an evaluation's thousand cases), and a compiled schema is
// immutable and safe to share, so each is compiled once. At most
// maxCompiled are kept, so a process that sees endless distinct schemas
// does not grow without bound.
var (
	compiled      sync.Map
	compiledCount atomic.Int64
)

const maxCompiled = 4096

// compileRaw compiles a schema's JSON text.
func compileRaw(name string, raw []byte) (*argSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "agentlab:tool/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of %s does not compile: %w", name, err)
	}
	return &argSchema{s}, nil
}

// validate checks args (a JSON object) and returns a one-line reason.
func (a *argSchema) validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("arguments must be a JSON object")
	}
	if err := a.s.Validate(v); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			return fmt.Errorf("%s", flattenValidation(ve))
		}
		return err
	}
	return nil
}

// flattenValidation turns the validator's multi-line message into one
// line listing the causes ("at '/x': …; at '/y': …"), which is what a
// model (or a person) can act on.
func flattenValidation(ve *jsonschema.ValidationError) string {
	var parts []string
	for _, line := range strings.Split(ve.Error(), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "- "); ok {
			parts = append(parts, rest)
		}
	}
	if len(parts) == 0 {
		return strings.TrimSpace(ve.Error())
	}
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more", len(parts)-5))
	}
	return strings.Join(parts, "; ")
}
