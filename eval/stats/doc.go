// Package stats holds the small amount of statistics an evaluation
// reports: Wilson score intervals for accuracies, the exact McNemar test
// for paired pass/fail comparisons, and percentiles for tokens, cost and
// time. Everything is closed-form and allocation-free so that reporting
// stays cheap next to running the questions.
//
// Where it fits: docs/architecture.md#evaluation.
package stats
