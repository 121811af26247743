package presets

import (
	"fmt"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
	"gopkg.in/yaml.v3"
)

var rowKeys = []string{"config", "disabled", "id", "use"}

// parsedRow is a row read from YAML together with where it came from, so
// that later checks (duplicates, config, consistency) can point at it.
type parsedRow struct {
	Row     plan.PresetRow
	Pos     diag.Pos // the row mapping
	IDPos   diag.Pos
	cfgNode *yaml.Node
}

func (r parsedRow) configAt() posFunc { return configPos(r.cfgNode, r.Pos) }

// row reads one row mapping {id, use, disabled, config} and validates its
// config against its use.
func (d *decoder) row(n *yaml.Node) (parsedRow, bool) {
	pr := parsedRow{Pos: posOf(n), IDPos: posOf(n)}
	if n.Kind != yaml.MappingNode {
		d.ds.Errorf(d.file, posOf(n), CodeSchema, "write the row as {id: …, use: …, config: {…}}", "a row must be a mapping")
		return pr, false
	}
	ok := true
	var useNode *yaml.Node
	d.eachPair(n, func(k, v *yaml.Node) {
		switch k.Value {
		case "id":
			pr.IDPos = posOf(v)
			s, sok := d.str(v, "id")
			ok = ok && sok
			if sok && !idPattern.MatchString(s) {
				d.ds.Errorf(d.file, posOf(v), CodeBadID, "use lowercase letters, digits, '_', '.' or '-', starting with a letter",
					"row id %q is not a valid id", s)
				ok = false
			}
			pr.Row.ID = s
		case "use":
			useNode = v
			s, sok := d.str(v, "use")
			ok = ok && sok
			pr.Row.Use = s
		case "disabled":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
				d.ds.Errorf(d.file, posOf(v), CodeSchema, "write disabled: true or disabled: false", "disabled must be true or false")
				ok = false
				return
			}
			val, _ := d.scalar(v)
			pr.Row.Disabled, _ = val.(bool)
		case "config":
			pr.cfgNode = v
			cfg, cok := d.config(v)
			ok = ok && cok
			pr.Row.Config = cfg
		default:
			d.ds.Errorf(d.file, posOf(k), CodeUnknownKey, fixUnknown(k.Value, rowKeys), "unknown row key %q", k.Value)
			ok = false
		}
	})
	if pr.Row.ID == "" && ok {
		d.ds.Errorf(d.file, posOf(n), CodeMissingKey, "add id: <row id>", "row has no id")
		ok = false
	}
	if useNode == nil {
		d.ds.Errorf(d.file, posOf(n), CodeMissingKey, fmt.Sprintf("add use: one of %v", Uses()), "row %q has no use", pr.Row.ID)
		return pr, false
	}
	if _, known := useSpecs[pr.Row.Use]; !known && pr.Row.Use != "" {
		fix := fmt.Sprintf("use one of %v", Uses())
		if s := suggest(pr.Row.Use, Uses()); s != "" {
			fix = fmt.Sprintf("did you mean %q? %s", s, fix)
		}
		d.ds.Errorf(d.file, posOf(useNode), CodeUse, fix, "row %q: unknown use %q", pr.Row.ID, pr.Row.Use)
		return pr, false
	}
	if ok {
		before := len(*d.ds)
		validateConfig(d.file, pr.Row.ID, pr.Row.Use, pr.Row.Config, pr.configAt(), d.ds)
		ok = len(*d.ds) == before
	}
	return pr, ok
}

// config reads a config mapping; an empty or null config is an empty map.
func (d *decoder) config(n *yaml.Node) (map[string]any, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, true
	}
	if n.Kind != yaml.MappingNode {
		d.ds.Errorf(d.file, posOf(n), CodeSchema, "write config as a mapping {key: value}", "config must be a mapping")
		return nil, false
	}
	v, ok := d.value(n, 1)
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		m = nil
	}
	return m, ok
}

// documentRoot returns the top node of a parsed YAML document, or reports
// that the file is empty.
func (d *decoder) documentRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		return doc.Content[0]
	}
	d.ds.Errorf(d.file, diag.Pos{Line: 1, Col: 1}, CodeSchema, "write a mapping with base: and ops:", "file is empty")
	return nil
}

// parseYAML parses data into a node tree, turning a syntax error into a
// positioned diagnostic.
func parseYAML(file string, data []byte, ds *diag.List) (*yaml.Node, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		ds.Errorf(file, yamlErrPos(err), CodeYAML, "fix the YAML syntax", "%s", yamlErrMsg(err))
		return nil, false
	}
	return &doc, true
}
