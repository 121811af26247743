// Package eval runs an evaluation suite (package eval/suite) against its
// flow and scores the answers: per question and variant whether the
// expected values appear among the answer's numbers within the precision
// they are written with, accuracy and traceable accuracy with Wilson
// intervals, the issuance tiers, tokens, cost and time percentiles, the
// transitions against a baseline result and exact McNemar tests between
// variants.
//
// An evaluation is recorded like a run: it gets a directory under
// <data-dir>/runs/ with its own hash-chained events (one eval.case event
// per finished case, the case inline under its content address; before
// each batch of cases run in memory, an eval.runs event naming the
// artifact that holds their whole logs) and is sealed when it finishes, so
// a result file can be checked against the store and an interrupted
// evaluation resumed without redoing finished cases. Running a case is
// behind the Runner interface; package flowrun runs the real flow.
//
// Where it fits: docs/architecture.md#evaluation.
package eval
