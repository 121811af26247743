package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeSetupCommands keeps the README's two set-up commands true: the
// test command is the one .ci/run runs, and the run command names an
// example that exists and that the examples script runs.
func TestReadmeSetupCommands(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	start := strings.Index(section, "## Set-up")
	if start < 0 {
		t.Fatal("README has no '## Set-up' section")
	}
	section = section[start+len("## Set-up"):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var cmds []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "    ") && strings.TrimSpace(line) != "" {
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("the set-up section must show exactly two commands, found %q", cmds)
	}
	runCmd, testCmd := cmds[0], cmds[1]

	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(testCmd) + `$`).Match(ci) {
		t.Errorf(".ci/run does not run the README's test command %q on a line of its own", testCmd)
	}

	m := regexp.MustCompile(`^go run \./cmd/agentlab run (examples/([a-z0-9-]+)/flow\.yml)$`).FindStringSubmatch(runCmd)
	if m == nil {
		t.Fatalf("the README's run command %q is not `go run ./cmd/agentlab run examples/<name>/flow.yml`", runCmd)
	}
	if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
		t.Errorf("the README runs %s, which does not exist", m[1])
	}
	script, err := os.ReadFile(filepath.Join("testdata", "script", "examples_all.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "exits 0 agentlab run "+m[2]+"/flow.yml") {
		t.Errorf("the examples script does not run %s the way the README does", m[2])
	}
}
