// Package bench generates the inputs of the performance benchmarks
// (docs/performance.md) and holds the arithmetic of their summary: min, median and
// max of repeated measurements, ratios to a floor measured in the same run,
// and the exponent of a log-log least-squares fit that shows whether a
// stage scales linearly.
//
// Every input is generated from a fixed seed, so two runs of bench/run.sh
// measure the same bytes, and nothing large is ever committed to the
// repository. The driver is bench/cmd/agentlab-bench; bench/run.sh builds
// and runs it.
//
// Where it fits: docs/architecture.md#supporting-packages.
package bench
