// Package lazyre is a regular expression compiled on its first use rather
// than when the program starts. The patterns a package declares at top
// level were compiled by every run of agentlab, whatever the command:
// a pattern such as `[a-z0-9_.-]{0,127}` compiles to a large program, and
// together they were a tenth of the CPU time of `agentlab lint` on one
// small file. TestPatternsCompile compiles every pattern of the
// repository's packages, so a bad one still fails the tests rather than
// the first run that reaches it.
//
// Where it fits: docs/architecture.md#supporting-packages.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use; it is safe for
// concurrent use, as *regexp.Regexp is.
type Regexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// New returns a Regexp for pattern; like regexp.MustCompile, using it
// panics if the pattern does not compile.
func New(pattern string) *Regexp { return &Regexp{pattern: pattern} }

// Re returns the compiled expression.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.pattern) })
	return r.re
}

// The methods below are those of *regexp.Regexp that the project uses.

func (r *Regexp) MatchString(s string) bool              { return r.Re().MatchString(s) }
func (r *Regexp) FindString(s string) string             { return r.Re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int         { return r.Re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string   { return r.Re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.Re().FindStringSubmatchIndex(s) }
func (r *Regexp) FindAllString(s string, n int) []string { return r.Re().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Re().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.Re().ReplaceAllString(src, repl) }
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Re().ReplaceAllLiteralString(src, repl)
}
func (r *Regexp) Match(b []byte) bool            { return r.Re().Match(b) }
func (r *Regexp) Split(s string, n int) []string { return r.Re().Split(s, n) }
func (r *Regexp) String() string                 { return r.pattern }
