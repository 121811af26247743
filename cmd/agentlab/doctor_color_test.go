package main

import (
	"strings"
	"testing"
)

// On a terminal the process backend's "NO ISOLATION" is red; without
// color (a pipe, NO_COLOR) the text is plain.
func TestPrintDoctorColor(t *testing.T) {
	res := []doctorResult{{Name: "sandbox", Status: "warn", Summary: "process (chosen automatically) — NO ISOLATION; code runs as you",
		Findings: []doctorFinding{{Severity: sevWarning, Message: "code nodes run with NO ISOLATION (process backend)"}}}}
	var plain, color strings.Builder
	printDoctor(&plain, "d", res, false)
	printDoctor(&color, "d", res, true)
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("escape codes without color:\n%q", plain.String())
	}
	if strings.Count(color.String(), "\x1b[1;31mNO ISOLATION\x1b[0m") != 2 || !strings.Contains(color.String(), "\x1b[33mWARN\x1b[0m") {
		t.Errorf("not flagged:\n%q", color.String())
	}
}
