package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/compile/tmpl"
)

// program compiles src once per run; lint and compile have already
// accepted it, so an error here means a hand-edited plan.
func (r *runner) program(src string, ctx expr.Context) (*expr.Program, error) {
	key := fmt.Sprintf("expr\x00%d\x00%s", ctx, src)
	if p, ok := r.cache.Load(key); ok {
		return p.(*expr.Program), nil
	}
	p, err := expr.Compile(src, ctx)
	if err != nil {
		return nil, err
	}
	r.cache.Store(key, p)
	return p, nil
}

func (r *runner) evalBool(src string, sc *scope) (bool, error) {
	p, err := r.program(src, expr.Cond)
	if err != nil {
		return false, err
	}
	return p.EvalBool(envFor(sc, p))
}

func (r *runner) eval(src string, ctx expr.Context, sc *scope) (any, error) {
	p, err := r.program(src, ctx)
	if err != nil {
		return nil, err
	}
	return p.Eval(envFor(sc, p))
}

// envFor builds the environment an expression needs.
func envFor(sc *scope, p *expr.Program) map[string]any {
	var ids []string
	for _, ref := range p.Refs() {
		if ref.Root != "nodes" {
			continue
		}
		if len(ref.Path) == 0 {
			return sc.env()
		}
		ids = append(ids, ref.Path[0])
	}
	return sc.envFor(ids, false)
}

// render renders one template string; the empty string renders to itself.
func render(src string, env map[string]any) (string, error) {
	if !strings.Contains(src, "{{") {
		return src, nil
	}
	return tmpl.Render(src, env)
}

// schema compiles a JSON Schema held in a plan, once per run.
func (r *runner) schema(s map[string]any) (*jsonschema.Schema, error) {
	b, err := canon.Marshal(s)
	if err != nil {
		return nil, err
	}
	key := "schema\x00" + string(b)
	if sc, ok := r.cache.Load(key); ok {
		return sc.(*jsonschema.Schema), nil
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("agentlab:schema.json", doc); err != nil {
		return nil, err
	}
	sc, err := c.Compile("agentlab:schema.json")
	if err != nil {
		return nil, err
	}
	r.cache.Store(key, sc)
	return sc, nil
}

// validate checks v against s and returns the violations as one sentence
// per line, or "" when v conforms.
func (r *runner) validate(s map[string]any, v any) (string, error) {
	sc, err := r.schema(s)
	if err != nil {
		return "", fmt.Errorf("the JSON Schema is not valid: %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		return "", err
	}
	if err := sc.Validate(inst); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			return schemaErrors(ve), nil
		}
		return err.Error(), nil
	}
	return "", nil
}

// schemaErrors flattens a validation error tree into "at /path: message" lines.
func schemaErrors(ve *jsonschema.ValidationError) string {
	var lines []string
	pr := message.NewPrinter(language.English)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			lines = append(lines, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(pr)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(lines, "\n")
}

// parseModelJSON reads a model answer as JSON, tolerating a ``` fence.
func parseModelJSON(text string) (any, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```json")
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		return nil, err
	}
	return v, nil
}
