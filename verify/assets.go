// Package verify writes and checks bundles offline. It never imports the
// run engine, so that an independent verifier stays small and auditable.
//
// Where it fits: docs/architecture.md#verifying.
package verify

import _ "embed"

// blake3JS is the JavaScript BLAKE3 that bundle.html embeds to re-hash
// everything in the browser.
//
//go:embed assets/blake3.js
var blake3JS string

// Blake3JS returns the embedded JavaScript BLAKE3 implementation.
func Blake3JS() string { return blake3JS }
