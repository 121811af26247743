// Package suite reads evaluation suites (`*.eval.yml`): which flow is
// under test, the variants it runs under, and the questions with their
// inputs and expectations.
//
// An expectation never holds a number typed by hand. The expected value is
// either computed by SQL over the flow's own sources on every evaluation
// (so it follows the data instead of freezing a past answer), read from a
// metric of a pinned metric card as the run computed it, or is one of the
// shapes `no_data: true` / `asks_back: true`. A literal number is a lint
// error whose fix is the SQL that should compute it.
//
// Parsing keeps yaml.v3 positions so that every diagnostic has a line and
// a column; codes are the E-EVAL-… codes listed in codes.go and in
// docs/evals.md.
//
// Where it fits: docs/architecture.md#evaluation.
package suite
