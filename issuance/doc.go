// Package issuance reads narrative text (English and Chinese), finds every
// number in it, maps each one to a controlled set of metrics and gives the
// issuance verdict of docs/evidence.md: formal, degraded or withheld.
//
// The premise is that numbers in a report come from data, never from the
// narrative. A report node writes citation markers and the system fills the
// values in; this package is the last line of defence that checks the
// rendered text: any number a reader would take as a quantity must be one of
// the metrics (within the precision it was written with), or the report is
// not issued as formal.
//
// Reading is a single pass over the bytes with no regular expressions, so a
// megabyte of narrative is read in a few tens of milliseconds. Offsets in
// Number are byte offsets into the UTF-8 text (Start inclusive, End
// exclusive); they always fall on the boundaries of the runes the scanner
// decoded, so text[Start:End] is the exact source of the number.
//
// The reading rules, with examples, are documented in docs/issuance.md.
//
// Where it fits: docs/architecture.md#evidence-and-issuance.
package issuance
