package tools

import (
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// codeFlags are the options with which a shell or an interpreter runs its
// next argument as a program.
var codeFlags = map[string][]string{
	"sh": {"-c"}, "bash": {"-c"}, "dash": {"-c"}, "zsh": {"-c"}, "ksh": {"-c"}, "ash": {"-c"}, "fish": {"-c"}, "busybox": {"-c"},
	"python": {"-c"}, "python3": {"-c"}, "node": {"-e", "--eval", "-p", "--print"}, "perl": {"-e", "-E"}, "ruby": {"-e"},
	"awk": {}, "env": {},
}

// versioned strips a version suffix from an interpreter name (python3.11).
var versioned = lazyre.New(`^(python|perl|ruby|node)[0-9.]*$`)

// CodeTemplate returns the index of an element of a command template that
// a shell or interpreter would run as a program and that an argument
// fills (`[sh, -c, "grep {{ args.q }} f"]`, `[python3, -c, "{{ args.code }}"]`),
// or -1. Such a tool gives whoever chooses the arguments a shell; it is
// refused at lint and at run time. Passing an argument after the program
// (`[sh, -c, 'grep -- "$1" f', sh, "{{ args.q }}"]`) is the safe form: it
// stays data. awk programs and `env` (which runs its
// first argument) are refused whenever an argument fills any element.
func CodeTemplate(argv []string) int {
	if len(argv) == 0 {
		return -1
	}
	prog := filepath.Base(argv[0])
	if m := versioned.FindStringSubmatch(prog); m != nil {
		prog = m[1]
	}
	flags, known := codeFlags[prog]
	if !known {
		return -1
	}
	if prog == "awk" || prog == "env" {
		for i := 1; i < len(argv); i++ {
			if strings.Contains(argv[i], "{{") {
				return i
			}
		}
		return -1
	}
	for i := 1; i < len(argv)-1; i++ {
		a := argv[i]
		isCode := false
		for _, f := range flags {
			// -c, and clustered short flags such as -ec or -xc.
			if a == f || (len(f) == 2 && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], f[1:])) {
				isCode = true
			}
		}
		if isCode {
			// The next element is the program; later ones are its
			// positional parameters ($0, $1, sys.argv), which are data.
			if strings.Contains(argv[i+1], "{{") {
				return i + 1
			}
			return -1
		}
	}
	return -1
}

// optionLike reports whether a rendered command argument would be read
// as an option: it starts with "-" and its template did not.
func optionLike(template, rendered string) bool {
	return strings.HasPrefix(rendered, "-") && !strings.HasPrefix(template, "-")
}
