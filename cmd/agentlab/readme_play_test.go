package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"gopkg.in/yaml.v3"
)

// TestReadmePlaysTopToBottom plays the README as a newcomer does, on a
// copy of the repository: the set-up, the five-minute tour and the CI job,
// every command as printed. The commands are read from README.md and
// translated to a testscript by fixed rules; a command the rules do not
// know fails the test, so the README cannot show a command nobody ran.
func TestReadmePlaysTopToBottom(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the repository")
	}
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("# generated from README.md by TestReadmePlaysTopToBottom\ncd repo\n\n# Set-up\n")
	for _, c := range indentedCommands(readmeSection(t, string(readme), "## Set-up")) {
		script.WriteString(playShell(t, c.cmd, c.comment))
	}
	script.WriteString("\n# A five-minute tour\n")
	for _, c := range indentedCommands(readmeSection(t, string(readme), "## A five-minute tour")) {
		script.WriteString(playShell(t, c.cmd, c.comment))
	}
	script.WriteString("\n# The tour left nothing inside the examples.\n")
	script.WriteString("! exists examples/traceable-weekly/weekly.plan.json\n! exists examples/traceable-weekly/.agentlab\n")
	script.WriteString("\n# Using agentlab in CI: a repository with flows/weekly.yml\ncd $WORK/ci\n")
	script.WriteString(playCIJob(t, readmeSection(t, string(readme), "## Using agentlab in CI")))

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CI", "true")
			env.Setenv("NO_COLOR", "1")
			if err := copyRepo(root, filepath.Join(env.WorkDir, "repo")); err != nil {
				return err
			}
			// The CI job's repository: the governed example as flows/weekly.yml.
			ex := filepath.Join(root, "examples", "traceable-weekly")
			ci := filepath.Join(env.WorkDir, "ci", "flows")
			if err := copyRepo(filepath.Join(ex, "data"), filepath.Join(ci, "data")); err != nil {
				return err
			}
			if err := copyRepo(filepath.Join(ex, "cards"), filepath.Join(ci, "cards")); err != nil {
				return err
			}
			b, err := os.ReadFile(filepath.Join(ex, "flow.yml"))
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(ci, "weekly.yml"), b, 0o644)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":      cmdExits,
			"sarifvalid": cmdSARIFValid,
			"sedfirst":   cmdSedFirst,
		},
	})
}

// readmeSection returns the text under a "## " heading, up to the next.
func readmeSection(t *testing.T, readme, heading string) string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading)
	if i < 0 {
		t.Fatalf("README has no %q section", heading)
	}
	s := readme[i+1+len(heading):]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

type shellCmd struct{ cmd, comment string }

// indentedCommands returns the commands of a section's indented code
// blocks, each with the comment lines above its group (a group ends at a
// blank line).
func indentedCommands(section string) []shellCmd {
	var out []shellCmd
	var comment []string
	afterCmd := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "    ") {
			comment = nil
			continue
		}
		l := strings.TrimSpace(line)
		switch {
		case l == "":
			comment = nil
		case strings.HasPrefix(l, "#"):
			if afterCmd {
				comment = nil
			}
			comment = append(comment, l)
			afterCmd = false
		default:
			out = append(out, shellCmd{cmd: l, comment: strings.Join(comment, " ")})
			afterCmd = true
		}
	}
	return out
}

var (
	exitInComment = regexp.MustCompile(`\(exit (\d)\)`)
	sedCommand    = regexp.MustCompile(`^sed 's/([^/']+)/([^/']*)/' (\S+) > (\S+)$`)
)

// playShell translates one shell command of the README.
func playShell(t *testing.T, cmd, comment string) string {
	t.Helper()
	exec := "exec "
	if m := exitInComment.FindStringSubmatch(comment); m != nil && m[1] != "0" {
		exec = "exits " + m[1] + " "
	}
	switch {
	case cmd == "go test ./...":
		return "# go test ./... is what runs this test\n"
	case cmd == "CGO_ENABLED=0 go build -o agentlab ./cmd/agentlab":
		return "# go build -o agentlab ./cmd/agentlab: agentlab is the binary under test\n"
	case strings.HasPrefix(cmd, "go run ./cmd/agentlab "):
		return exec + "agentlab " + strings.TrimPrefix(cmd, "go run ./cmd/agentlab ") + "\n"
	case strings.HasPrefix(cmd, "./agentlab "):
		return exec + "agentlab " + strings.TrimPrefix(cmd, "./agentlab ") + "\n"
	case strings.HasPrefix(cmd, "xdg-open "):
		return "exists " + strings.TrimPrefix(cmd, "xdg-open ") + "\n"
	}
	if m := sedCommand.FindStringSubmatch(cmd); m != nil {
		return fmt.Sprintf("sedfirst %s %s %s %s\n", m[1], m[2], m[3], m[4])
	}
	t.Fatalf("the README shows %q, which this test does not know how to play; teach playShell", cmd)
	return ""
}

// playCIJob translates the steps of the README's GitHub Actions job.
func playCIJob(t *testing.T, section string) string {
	t.Helper()
	start := strings.Index(section, "```yaml\n")
	end := strings.Index(section[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("the CI section has no ```yaml block")
	}
	var job struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string
				Run  string
				With map[string]any
			}
		}
	}
	if err := yaml.Unmarshal([]byte(section[start+8:start+8+end]), &job); err != nil {
		t.Fatalf("the CI job is not YAML: %v", err)
	}
	if len(job.Jobs) != 1 {
		t.Fatalf("the CI section must show one job, found %d", len(job.Jobs))
	}
	var b strings.Builder
	for _, j := range job.Jobs {
		for _, s := range j.Steps {
			switch {
			case s.Uses == "actions/checkout@v4" && s.With["repository"] == nil:
				b.WriteString("# checkout: the working directory holds flows/weekly.yml\n")
			case s.Uses == "actions/checkout@v4", s.Uses == "actions/setup-go@v5":
				b.WriteString("# " + s.Uses + ": agentlab is the binary under test\n")
			case s.Run == "cd agentlab-src && CGO_ENABLED=0 go build -o /usr/local/bin/agentlab ./cmd/agentlab":
				b.WriteString("# go build: agentlab is the binary under test\n")
			case s.Uses == "github/codeql-action/upload-sarif@v3":
				b.WriteString(fmt.Sprintf("sarifvalid %v\n", s.With["sarif_file"]))
			case s.Uses == "actions/upload-artifact@v4":
				b.WriteString(fmt.Sprintf("exists %v\n", s.With["path"]))
			case strings.HasPrefix(s.Run, "agentlab "):
				cmd, out, redirect := strings.Cut(s.Run, " > ")
				b.WriteString("exec " + cmd + "\n")
				if redirect {
					b.WriteString("cp stdout " + out + "\n")
				}
			default:
				t.Fatalf("the CI job has a step this test does not know how to play: %+v; teach playCIJob", s)
			}
		}
	}
	return b.String()
}

// cmdSedFirst does what `sed 's/OLD/NEW/' IN > OUT` does: replace the first
// OLD on every line.
//
//	sedfirst OLD NEW IN OUT
func cmdSedFirst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: sedfirst OLD NEW IN OUT")
	}
	lines := strings.SplitAfter(ts.ReadFile(args[2]), "\n")
	for i, l := range lines {
		lines[i] = strings.Replace(l, args[0], args[1], 1)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(strings.Join(lines, "")), 0o644))
}

// copyRepo copies a source tree as a fresh clone has it: without .git,
// data directories, outputs and built binaries.
func copyRepo(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || rel == "out" || rel == filepath.Join("bench", "out")) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || rel == "agentlab" || strings.HasSuffix(rel, ".test") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
