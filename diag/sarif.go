package diag

import (
	"encoding/json"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// SARIF 2.1.0 types: only what GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool        `json:"tool"`
	Artifacts  []sarifArtifactE `json:"artifacts,omitempty"`
	Results    []sarifResult    `json:"results"`
	Properties *sarifRunProps   `json:"properties,omitempty"`
}

// sarifArtifactE is an entry of run.artifacts: a file the lint checked.
type sarifArtifactE struct {
	Location sarifArtifact `json:"location"`
	Roles    []string      `json:"roles"`
}

// sarifRunProps is the run's property bag: what the lint checked.
type sarifRunProps struct {
	Checked map[string]int `json:"checked"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
	FullDescription  sarifMessage `json:"fullDescription"`
	Help             sarifHelp    `json:"help"`
	HelpURI          string       `json:"helpUri"`
	DefaultConfig    sarifConfig  `json:"defaultConfiguration"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// WriteSARIF prints a SARIF 2.1.0 log that GitHub code scanning accepts:
// one rule per diagnostic code, results with 1-based regions and
// repository-relative URIs.
func WriteSARIF(w io.Writer, l List, toolVersion string) error {
	return writeSARIF(w, l, toolVersion, nil)
}

// writeSARIF lists the checked files as run artifacts, with their counts
// in the run's properties, when c is set.
func writeSARIF(w io.Writer, l List, toolVersion string, c *Checked) error {
	ruleIndex := map[string]int{}
	var codes []string
	firstSev := map[string]Severity{}
	for _, d := range l {
		if _, ok := firstSev[d.Code]; !ok {
			firstSev[d.Code] = d.Severity
			codes = append(codes, d.Code)
		}
	}
	sort.Strings(codes)
	rules := make([]sarifRule, 0, len(codes))
	for i, c := range codes {
		ruleIndex[c] = i
		rt := ruleFor(c)
		rules = append(rules, sarifRule{
			ID:               c,
			ShortDescription: sarifMessage{Text: rt.short},
			FullDescription:  sarifMessage{Text: rt.full},
			Help:             sarifHelp{Text: rt.helpText, Markdown: rt.helpMarkdown},
			HelpURI:          rt.helpURI,
			DefaultConfig:    sarifConfig{Level: sarifLevel(firstSev[c])},
		})
	}
	results := make([]sarifResult, 0, len(l))
	for _, d := range l {
		// The fix is a sentence of its own after the message's.
		msg := sentence(d.Message)
		if d.Fix != "" {
			msg += " Fix: " + sentence(d.Fix)
		}
		line, col := d.annotationPos()
		results = append(results, sarifResult{
			RuleID:    d.Code,
			RuleIndex: ruleIndex[d.Code],
			Level:     sarifLevel(d.Severity),
			Message:   sarifMessage{Text: msg},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: filepath.ToSlash(d.File)},
				Region:           sarifRegion{StartLine: line, StartColumn: col},
			}}},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{
				Name: "agentlab", Version: toolVersion,
				InformationURI: "https://github.com/agentlab/agentlab",
				Rules:          rules,
			}},
			Results: results,
		}},
	}
	if c != nil {
		run := &log.Runs[0]
		run.Properties = &sarifRunProps{Checked: c.Counts()}
		for _, f := range c.Files {
			if strings.HasPrefix(f.Path, "<") { // <stdin> is no URI
				continue
			}
			run.Artifacts = append(run.Artifacts, sarifArtifactE{
				Location: sarifArtifact{URI: filepath.ToSlash(f.Path)},
				Roles:    []string{"analysisTarget"},
			})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// annotationPos is the position to report d at in formats that need a
// real one (GitHub annotations, SARIF regions): a whole-file diagnostic
// (line or column 0) is placed at 1:1.
func (d Diagnostic) annotationPos() (line, col int) {
	return max(d.Line, 1), max(d.Col, 1)
}
