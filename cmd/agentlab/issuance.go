package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/issuance"
	"github.com/spf13/cobra"
)

func init() { register("issuance", newIssuanceCmd) }

func newIssuanceCmd() *cobra.Command {
	var (
		metricsFile string
		strict      bool
		required    []string
		format      string
	)
	cmd := &cobra.Command{
		Use:   "issuance --metrics FILE [--strict] [--required a,b] [TEXT|-]",
		Short: "Explain how the issuance checker reads a narrative",
		Long: `Explain how the issuance checker reads a narrative: every number it finds
(English and Chinese), its value or interval, the metric it was traced to or why
it was ignored, and the issuance tier (formal, degraded or withheld).

The narrative is TEXT, or standard input when TEXT is "-" or absent. The metric
set is a JSON file in one of two shapes:

  {"gmv": 1234.5, "wow": {"value": 0.087, "format": "percent"}}
  [{"name": "gmv", "value": 1234.5}, {"name": "wow", "value": 0.087, "format": "percent"}]

A metric with "format": "percent" holds a ratio, so 8.7% matches 0.087. The
verdict is data, not failure: the command exits 0 whatever the tier, and 2 when
the usage is wrong or the metrics file cannot be read. A metrics file that
cannot be read or parsed is reported as a diagnostic (file:line:col, code,
fix); with --format json as {"diagnostics":[…],"errors":N,"warnings":N} on
stdout. The reading rules are in docs/issuance.md.

Examples:
  agentlab issuance --metrics metrics.json "GMV rose 8.7% to 1,234.5 yuan"
  agentlab issuance --metrics metrics.json --required gmv,wow --strict - < brief.md
  echo "销售额3.5万元，环比增长百分之八点七" | agentlab issuance --metrics m.json --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if metricsFile == "" {
				return exitf(exitUsage, "--metrics FILE is required\nRun 'agentlab issuance --help' for usage.")
			}
			metrics, err := issuance.LoadMetrics(metricsFile)
			if err != nil {
				var d diag.Diagnostic
				switch {
				case errors.As(err, &d) && format == "json":
					// The JSON diagnostics shape of docs/cli.md on stdout,
					// so that a pipeline reading JSON gets JSON.
					return writeDiagnostics(cmd.OutOrStdout(), cmd.ErrOrStderr(), format, diag.List{d}, exitUsage, "")
				case errors.As(err, &d) && d.Fix != "":
					return exitf(exitUsage, "%s\n  fix: %s", d, d.Fix)
				}
				return exitf(exitUsage, "%v", err)
			}
			var text string
			if len(args) == 0 || args[0] == "-" {
				b, err := readCappedStdin(cmd.InOrStdin(), fsutil.IssuanceCap, "the narrative on standard input")
				if err != nil {
					return exitf(exitUsage, "cannot read the narrative from standard input: %v", err)
				}
				text = string(b)
			} else {
				text = args[0]
			}
			res := issuance.Check(text, metrics, issuance.Options{Strict: strict, Required: splitList(required)})
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				return enc.Encode(res)
			}
			writeIssuanceText(out, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&metricsFile, "metrics", "", "JSON file with the metric set (required)")
	cmd.Flags().BoolVar(&strict, "strict", false, "withhold when any number is untraced (numbers: strict)")
	cmd.Flags().StringSliceVar(&required, "required", nil, "metrics that must be mentioned, comma-separated")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

// splitList trims the entries of a comma-separated flag and drops empty ones.
func splitList(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// writeIssuanceText prints one line per number, then the tier and why:
//
//	@12-16  8.7%  = 0.087 ±0.0005  matched wow
func writeIssuanceText(w io.Writer, res issuance.Result) {
	for _, n := range res.Numbers {
		var val, verdict string
		switch {
		case n.Interval != nil:
			val = fmt.Sprintf("in [%s, %s]", fmtNum(n.Interval[0]), fmtNum(n.Interval[1]))
		case n.Value != nil:
			val = "= " + fmtNum(*n.Value)
			if n.Tolerance > 0 {
				val += " ±" + fmtNum(n.Tolerance)
			}
		default:
			val = "-"
		}
		switch {
		case n.Ignored != nil:
			verdict = "ignored: " + *n.Ignored
		case n.Matched != nil:
			verdict = "matched " + *n.Matched
		case len(n.Ambiguous) > 0:
			verdict = "ambiguous: " + strings.Join(n.Ambiguous, ", ")
		default:
			verdict = "untraced"
		}
		fmt.Fprintf(w, "@%d-%d  %s  %s  %s\n", n.Start, n.End, strings.ReplaceAll(n.Text, "\n", " "), val, verdict)
	}
	for _, m := range res.Missing {
		fmt.Fprintf(w, "missing: %s\n", m)
	}
	for _, r := range res.Reasons {
		fmt.Fprintf(w, "reason: %s\n", r)
	}
	fmt.Fprintf(w, "tier: %s\n", res.Tier)
}

// fmtNum prints a value without an exponent in the usual range, so that
// 1,234,567 reads back as 1234567.
func fmtNum(v float64) string {
	if a := math.Abs(v); a == 0 || (a >= 1e-6 && a < 1e15) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
