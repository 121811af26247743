package verify

import (
	"go/build"
	"os/exec"
	"strings"
	"testing"
)

// TestNoRunImports keeps the verifier independent of the engine: neither
// this package nor anything it imports from the module may be under run/.
func TestNoRunImports(t *testing.T) {
	const mod = "github.com/agentlab/agentlab/"
	seen := map[string]bool{}
	var walk func(path, dir string)
	walk = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		var p *build.Package
		var err error
		if dir != "" {
			p, err = build.ImportDir(dir, 0)
		} else {
			p, err = build.Import(path, ".", 0)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			if strings.HasPrefix(imp, mod+"run") {
				t.Errorf("%s imports %s", path, imp)
			}
			walk(imp, "")
		}
	}
	walk(mod+"verify", ".")
}

// TestNoNetworkImports keeps the verifier offline by construction: no
// package it is built from may import a network client or server. Two
// imports are allowed by name: golang.org/x/net/html (and its atom
// table), the HTML parser the page check reads a bundle with — a parser
// that opens nothing — and the standard library's crypto/x509, which
// imports net only for the IP addresses of certificates.
func TestNoNetworkImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{.Standard}}:{{range .Imports}} {{.}}{{end}}`, ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	allowed := map[string]bool{"golang.org/x/net/html": true, "golang.org/x/net/html/atom": true}
	network := func(imp string) bool {
		switch {
		case allowed[imp]:
			return false
		case imp == "net", strings.HasPrefix(imp, "net/") && imp != "net/netip" && imp != "net/url",
			imp == "crypto/tls", strings.HasPrefix(imp, "golang.org/x/net/"):
			return true
		}
		return false
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		head, imps, _ := strings.Cut(line, ":")
		pkg, std, _ := strings.Cut(head, " ")
		for _, imp := range strings.Fields(imps) {
			if imp == "golang.org/x/net/html" {
				seen++
			}
			if !network(imp) || (std == "true" && pkg == "crypto/x509" && imp == "net") {
				continue
			}
			if std == "true" && strings.HasPrefix(pkg, "net") {
				continue // the standard library's own network packages, reached only through crypto/x509
			}
			t.Errorf("%s imports %s: the verifier must not reach the network", pkg, imp)
		}
	}
	if seen == 0 {
		t.Errorf("nothing imports golang.org/x/net/html: drop it from the allowed list")
	}
}
