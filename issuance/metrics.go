package issuance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentlab/agentlab/diag"
)

// Diagnostic codes for metric files (documented in docs/issuance.md).
const (
	CodeMetricsJSON   = "E-ISSUANCE-JSON"   // not valid JSON
	CodeMetricsShape  = "E-ISSUANCE-SHAPE"  // neither {"name": number} nor a list of metric objects
	CodeMetricsName   = "E-ISSUANCE-NAME"   // a metric without a name, or a name given twice
	CodeMetricsFormat = "E-ISSUANCE-FORMAT" // format other than number, percent, currency
)

// ParseMetrics reads a metric set from JSON in one of two shapes:
//
//	{"gmv": 1234.5, "wow": {"value": 0.087, "format": "percent", "decimals": 1}}
//	[{"name": "gmv", "value": 1234.5, "unit": "元"}, {"name": "wow", "value": 0.087, "format": "percent"}]
//
// In the object shape a metric is a bare number or an object with the
// fields of Metric except name. Unknown fields are errors. The error, if
// any, is a diag.Diagnostic that names file, line and column.
func ParseMetrics(file string, data []byte) ([]Metric, error) {
	p := metricParser{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	return p.parse()
}

type metricParser struct {
	file string
	data []byte
	dec  *json.Decoder
}

func (p *metricParser) errAt(off int64, code, fix, format string, args ...any) error {
	line, col := lineCol(p.data, off)
	return diag.Diagnostic{File: p.file, Line: line, Col: col, Severity: diag.Error, Code: code,
		Message: fmt.Sprintf(format, args...), Fix: fix}
}

const shapeFix = `write {"name": value, …} or [{"name": "…", "value": …}, …]`

func (p *metricParser) jsonErr(base int64, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return p.errAt(base+se.Offset, CodeMetricsJSON, "fix the JSON syntax at this position", "metrics file is not valid JSON: %v", se)
	case errors.As(err, &te):
		return p.errAt(base+te.Offset, CodeMetricsShape, shapeFix, "field %q has a %s, want a %s", te.Field, te.Value, te.Type)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return p.errAt(int64(len(p.data)), CodeMetricsJSON, "complete the JSON document", "metrics file ends before the JSON is complete")
	}
	return p.errAt(base, CodeMetricsShape, shapeFix, "%v", err)
}

func (p *metricParser) parse() ([]Metric, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.jsonErr(0, err)
	}
	var out []Metric
	seen := map[string]bool{}
	add := func(off int64, m Metric) error {
		if m.Name == "" {
			return p.errAt(off, CodeMetricsName, `give the metric a "name"`, "metric has no name")
		}
		if seen[m.Name] {
			return p.errAt(off, CodeMetricsName, "remove or rename one of them", "metric %q is defined twice", m.Name)
		}
		switch m.Format {
		case "", "number", "percent", "currency":
		default:
			return p.errAt(off, CodeMetricsFormat, `use "number", "percent" or "currency"`, "metric %q has format %q", m.Name, m.Format)
		}
		if m.Decimals != nil && (*m.Decimals < 0 || *m.Decimals > 15) {
			return p.errAt(off, CodeMetricsShape, "use a number of decimals from 0 to 15", "metric %q has decimals %d", m.Name, *m.Decimals)
		}
		seen[m.Name] = true
		out = append(out, m)
		return nil
	}
	switch tok {
	case json.Delim('{'):
		for p.dec.More() {
			off := p.dec.InputOffset()
			k, err := p.dec.Token()
			if err != nil {
				return nil, p.jsonErr(0, err)
			}
			name, _ := k.(string)
			voff := p.dec.InputOffset()
			var raw json.RawMessage
			if err := p.dec.Decode(&raw); err != nil {
				return nil, p.jsonErr(0, err)
			}
			voff = skipSpaceColon(p.data, voff)
			m := Metric{Name: name}
			if len(raw) > 0 && raw[0] == '{' {
				var body struct {
					Value    *float64 `json:"value"`
					Unit     string   `json:"unit"`
					Decimals *int     `json:"decimals"`
					Format   string   `json:"format"`
				}
				if err := strictDecode(raw, &body); err != nil {
					return nil, p.jsonErr(voff, err)
				}
				if body.Value == nil {
					return nil, p.errAt(voff, CodeMetricsShape, `add "value": <number>`, "metric %q has no value", name)
				}
				m.Value, m.Unit, m.Decimals, m.Format = *body.Value, body.Unit, body.Decimals, body.Format
			} else {
				var v float64
				if err := json.Unmarshal(raw, &v); err != nil {
					return nil, p.errAt(voff, CodeMetricsShape, shapeFix, "metric %q is %s, want a number or an object", name, describe(raw))
				}
				m.Value = v
			}
			if err := add(off+int64(leadingSpace(p.data, off)), m); err != nil {
				return nil, err
			}
		}
	case json.Delim('['):
		for p.dec.More() {
			off := p.dec.InputOffset()
			var raw json.RawMessage
			if err := p.dec.Decode(&raw); err != nil {
				return nil, p.jsonErr(0, err)
			}
			off = skipSpaceColon(p.data, off)
			if len(raw) == 0 || raw[0] != '{' {
				return nil, p.errAt(off, CodeMetricsShape, shapeFix, "list entry is %s, want a metric object", describe(raw))
			}
			var body struct {
				Name     string   `json:"name"`
				Value    *float64 `json:"value"`
				Unit     string   `json:"unit"`
				Decimals *int     `json:"decimals"`
				Format   string   `json:"format"`
			}
			if err := strictDecode(raw, &body); err != nil {
				return nil, p.jsonErr(off, err)
			}
			if body.Value == nil {
				return nil, p.errAt(off, CodeMetricsShape, `add "value": <number>`, "metric %q has no value", body.Name)
			}
			if err := add(off, Metric{Name: body.Name, Value: *body.Value, Unit: body.Unit, Decimals: body.Decimals, Format: body.Format}); err != nil {
				return nil, err
			}
		}
	default:
		return nil, p.errAt(0, CodeMetricsShape, shapeFix, "metrics file holds %v, want an object or a list", tok)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.jsonErr(0, err)
	}
	rest := skipSpaceColon(p.data, p.dec.InputOffset())
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.errAt(rest, CodeMetricsJSON, "remove what follows the first JSON value", "metrics file has more than one JSON value")
	}
	return out, nil
}

// strictDecode decodes one JSON object, rejecting unknown fields.
func strictDecode(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

func describe(raw []byte) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	}
	return "a number"
}

// skipSpaceColon moves off past the whitespace, ':' and ',' that the
// decoder's offset may point before.
func skipSpaceColon(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func leadingSpace(data []byte, off int64) int {
	return int(skipSpaceColon(data, off) - off)
}

// lineCol turns a byte offset into a 1-based line and column (in runes).
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	line, col := 1, 1
	for _, r := range string(data[:off]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
