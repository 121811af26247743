package tools

import (
	"os"
	"strings"
	"testing"
)

// TestCodesDocumented keeps docs/security.md in step with the codes.
func TestCodesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{CodeUnknown, CodeArgs, CodeEffect, CodeJail, CodeSSRF, CodeDecl} {
		if !strings.Contains(string(b), "`"+code+"`") {
			t.Errorf("docs/security.md does not document %s", code)
		}
	}
}
