package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	sarifSchemaOnce sync.Once
	sarifSchema     *jsonschema.Schema
	sarifSchemaErr  error
)

// checkSARIF validates a SARIF log against the SARIF 2.1.0 schema in
// testdata/ and against what GitHub code scanning needs to show a result:
// a tool name, and per result a rule id, a message, a file and a start line;
// per rule a short description, a full description, help and a help URI.
func checkSARIF(b []byte) error {
	sarifSchemaOnce.Do(func() {
		f, err := os.Open(filepath.Join("..", "..", "testdata", "sarif-schema-2.1.0.json"))
		if err != nil {
			sarifSchemaErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			sarifSchemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("sarif.json", doc); err != nil {
			sarifSchemaErr = err
			return
		}
		sarifSchema, sarifSchemaErr = c.Compile("sarif.json")
	})
	if sarifSchemaErr != nil {
		return sarifSchemaErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := sarifSchema.Validate(inst); err != nil {
		return err
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct {
						ID               string
						ShortDescription struct{ Text string }
						FullDescription  struct{ Text string }
						Help             struct{ Text, Markdown string }
						HelpURI          string `json:"helpUri"`
					}
				}
			}
			Results []struct {
				RuleID    string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b, &log); err != nil {
		return err
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name == "" {
		return fmt.Errorf("want version 2.1.0, one run and a tool name")
	}
	run := log.Runs[0]
	for _, r := range run.Tool.Driver.Rules {
		if r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Help.Text == "" || r.Help.Markdown == "" || r.HelpURI == "" {
			return fmt.Errorf("rule %s lacks a description, help or helpUri", r.ID)
		}
	}
	for _, r := range run.Results {
		if r.RuleID == "" || r.Message.Text == "" || len(r.Locations) == 0 {
			return fmt.Errorf("a result lacks a rule id, a message or a location: %+v", r)
		}
		l := r.Locations[0].PhysicalLocation
		if l.ArtifactLocation.URI == "" || l.Region.StartLine < 1 {
			return fmt.Errorf("result %s has no file or start line", r.RuleID)
		}
	}
	return nil
}

// cmdSARIFValid checks a file as GitHub code scanning would read it:
//
//	sarifvalid FILE
func cmdSARIFValid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sarifvalid FILE")
	}
	err := checkSARIF([]byte(ts.ReadFile(args[0])))
	switch {
	case neg && err == nil:
		ts.Fatalf("%s is valid SARIF", args[0])
	case !neg && err != nil:
		ts.Fatalf("%s: %v", args[0], err)
	}
}
