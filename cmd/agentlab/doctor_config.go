package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/provider"
)

func init() { addDoctorSection(doctorSection{name: "config", order: 7, run: doctorConfig}) }

// doctorConfig checks every table of the configuration files a run in the
// working directory would read: the nearest agentlab.toml ([permissions],
// [http_fetch], [mcp], [providers], [ptc]) and the user's config.toml
// ([providers], [mcp]). A run reads [mcp] only when the flow names an MCP
// tool and [providers] only with a remote provider, so without this a
// mistake there shows up only in the run that first needs it. Each
// problem is a finding carrying its diagnostic (file, line, column, code,
// fix); the PTC chain's warnings (the [ptc] table and the PTC_* variables)
// are findings of their own. Each file in force also says, as info
// findings, what it decides; a project file another user could have
// written is an error finding with the command that trusts it.
func doctorConfig(*doctorEnv) doctorResult {
	wd, _ := os.Getwd()
	project := ""
	if wd != "" {
		project = provider.ProjectConfigFile(wd)
	}
	var fs []doctorFinding
	var files []string
	var all diag.List
	if project != "" {
		files = append(files, project)
		all = append(all, run.CheckConfigFile(project, true)...)
	}
	if user := provider.UserConfigFile(); user != "" {
		if _, err := os.Stat(user); err == nil {
			files = append(files, user)
			all = append(all, run.CheckConfigFile(user, false)...)
		}
	}
	for _, d := range all.Sorted() {
		fs = append(fs, diagFinding(d))
	}
	// What each file in force decides, and whether the project file is in
	// force at all (one another user could have written is refused).
	if project != "" {
		if err := run.CheckConfigTrust(filepath.Dir(project)); err != nil {
			fs = append(fs, doctorFinding{Severity: sevError, Message: err.Error(), Command: "agentlab trust " + shellQuote(filepath.Dir(project))})
		}
	}
	for i, f := range files {
		for _, line := range run.DescribeConfigFile(f, i == 0 && project != "") {
			fs = append(fs, doctorFinding{Severity: sevInfo, Message: f + ": " + line})
		}
	}
	// The permission rules of the files above the project's hold too.
	if project != "" {
		enclosing, err := run.EnclosingRules(project)
		if err != nil {
			fs = append(fs, doctorFinding{Severity: sevError, Message: err.Error()})
		}
		for _, e := range enclosing {
			fs = append(fs, doctorFinding{Severity: sevInfo, Message: fmt.Sprintf("%s: permissions: %d rule(s) of the enclosing project file — its deny and ask hold over %s's allow",
				filepath.Clean(filepath.Join(filepath.Dir(project), e.File)), len(e.Rules), filepath.Base(project))})
		}
	}
	ptcFile, err := ptc.LoadFileConfig(wd)
	if err != nil {
		// CheckConfigFile has reported the syntax; say what it means for PTC.
		fs = append(fs, doctorFinding{Severity: sevError, Message: fmt.Sprintf("the [ptc] table cannot be read: %v", err), Command: "agentlab ptc decide --user \"$USER\""})
	} else {
		_, warns := ptc.ConfigFromEnv(os.Getenv, ptcFile)
		for _, w := range warns {
			fs = append(fs, doctorFinding{Severity: sevWarning, Message: "code mode (PTC): " + w, Command: "agentlab ptc decide --user \"$USER\""})
		}
	}
	switch len(files) {
	case 0:
		return doctorResult{Summary: "no agentlab.toml here or above, no user config.toml: built-in defaults", Findings: fs}
	case 1:
		return doctorResult{Summary: "checked " + files[0], Findings: fs}
	}
	return doctorResult{Summary: fmt.Sprintf("checked %s and %s", files[0], files[1]), Findings: fs}
}

// diagFinding turns a diagnostic into a doctor finding: the message is the
// diagnostic's line (file:line:col: severity code message), the fix is
// printed under it, and the JSON keeps the whole diagnostic.
func diagFinding(d diag.Diagnostic) doctorFinding {
	sev := sevInfo
	switch d.Severity {
	case diag.Error:
		sev = sevError
	case diag.Warning:
		sev = sevWarning
	}
	dc := d
	return doctorFinding{Severity: sev, Message: fmt.Sprintf("%s:%d:%d: %s %s", d.File, d.Line, d.Col, d.Code, d.Message), Diagnostic: &dc}
}
