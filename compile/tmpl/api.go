// Package tmpl parses and renders the `{{ … }}` templates of flow files.
// Rendering is single-pass: a value inserted into a template is never
// rendered again, so an input containing "{{ … }}" stays literal text.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package tmpl
