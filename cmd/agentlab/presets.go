package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
)

func init() { register("presets", newPresetsCmd) }

func newPresetsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "presets",
		Short: "Show built-in presets, resolve patch files and compare presets",
		Long: `A preset is an ordered list of rows {id, use, disabled, config} that sets an
agent's persona, tool presentation, tools, guardrails, sandbox and context
compaction. The built-ins are standard, ptc, minimal and creator; a
*.patch.yml file derives a new preset from a base by operations on row ids.

Wherever a preset is named, NAME is a built-in name or a path to a patch file.

Exit codes: 0 ok, 1 the patch file has lint errors, 2 usage or unknown preset.

Examples:
  agentlab presets list
  agentlab presets show ptc
  agentlab presets diff standard ptc
  agentlab presets apply presets/team.patch.yml --format json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitf(exitUsage, "presets needs a subcommand: list, show, diff or apply\nRun 'agentlab presets --help' for usage.")
			}
			return unknownSubcommand("agentlab presets", args[0], []string{"list", "show", "diff", "apply"})
		},
	}
	cmd.AddCommand(newPresetsListCmd(), newPresetsShowCmd(), newPresetsDiffCmd(), newPresetsApplyCmd())
	return cmd
}

func newPresetsListCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in presets",
		Long:  "List the built-in presets with their number of rows and a description.\n\nExample:\n  agentlab presets list --format json",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			type item struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Rows        int    `json:"rows"`
			}
			items := []item{}
			for _, n := range presets.Builtins() {
				info, _ := presets.Builtin(n)
				items = append(items, item{n, info.Description, len(info.Rows)})
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return presetsJSONOut(out, map[string]any{"presets": items})
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tROWS\tDESCRIPTION")
			for _, it := range items {
				fmt.Fprintf(tw, "%s\t%d\t%s\n", it.Name, it.Rows, it.Description)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

func newPresetsShowCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "show NAME|PATCH",
		Short: "Print the rows of a built-in preset or of a resolved patch file",
		Long: `Print the rows of a built-in preset, or of a patch file after its base chain
has been resolved and its operations applied.

Example:
  agentlab presets show standard
  agentlab presets show presets/team.patch.yml --format json`,
		Args: presetsArgs(1, "NAME|PATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			p, err := resolvePresetArg(cmd, args[0], format)
			if err != nil {
				return err
			}
			if format == "json" {
				return presetsJSONOut(cmd.OutOrStdout(), presetJSON(p))
			}
			return presets.WriteRows(cmd.OutOrStdout(), p.Rows)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

func newPresetsDiffCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Print the row-level differences between two presets",
		Long: `Print the rows that differ from preset A to preset B: added (+), removed (-),
and changed or moved (~) with one line per changed field. Each of A and B is a
built-in name or a patch file. Identical presets print "no differences".

Example:
  agentlab presets diff standard ptc
  agentlab presets diff standard presets/team.patch.yml --format json`,
		Args: presetsArgs(2, "A B"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			a, err := resolvePresetArg(cmd, args[0], format)
			if err != nil {
				return err
			}
			b, err := resolvePresetArg(cmd, args[1], format)
			if err != nil {
				return err
			}
			changes := presets.Diff(a.Rows, b.Rows)
			if format == "json" {
				if changes == nil {
					changes = []presets.RowChange{}
				}
				return presetsJSONOut(cmd.OutOrStdout(), map[string]any{"a": a.Name, "b": b.Name, "changes": changes})
			}
			return presets.WriteDiff(cmd.OutOrStdout(), changes)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

func newPresetsApplyCmd() *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "apply PATCH",
		Short: "Resolve a patch file and print the complete resulting preset",
		Long: `Resolve a patch file (following its base chain), apply its operations and
print the complete resulting preset: YAML in the built-in preset format
(text) or JSON. Lint errors are printed instead and the exit code is 1.

Example:
  agentlab presets apply presets/team.patch.yml
  agentlab presets apply presets/team.patch.yml --format json -o team.json`,
		Args: presetsArgs(1, "PATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if presets.IsBuiltin(args[0]) {
				return exitf(exitUsage, "%q is a built-in preset, not a patch file; use 'agentlab presets show %s'", args[0], args[0])
			}
			p, err := resolvePresetArg(cmd, args[0], format)
			if err != nil {
				return err
			}
			var w io.Writer = cmd.OutOrStdout()
			var f *os.File
			if output != "" && output != "-" {
				if f, err = os.Create(output); err != nil {
					return exitf(exitUsage, "%v", err)
				}
				w = f
			}
			if format == "json" {
				err = presetsJSONOut(w, presetJSON(p))
			} else {
				err = writePresetYAML(w, p)
			}
			if f != nil {
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text (YAML)|json")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

// presetsArgs is cobra.ExactArgs with a message that names the arguments.
func presetsArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return exitf(exitUsage, "%s needs %s (got %d argument(s))\nRun '%s --help' for usage.", cmd.CommandPath(), names, len(args), cmd.CommandPath())
		}
		return nil
	}
}

// resolvePresetArg resolves a built-in name or a patch path given on the
// command line. A patch with lint errors prints them (stderr in text
// format, stdout in json, as lint does) and exits 1; an unknown name exits 2.
func resolvePresetArg(cmd *cobra.Command, arg, format string) (plan.Preset, error) {
	p, ds := presets.Resolve(arg, ".")
	for _, d := range ds {
		if d.Code == presets.CodeUnknownPreset && d.File == "" {
			return p, exitf(exitUsage, "%s; %s", d.Message, d.Fix)
		}
	}
	if len(ds) > 0 {
		ds = ds.Sorted()
		if format == "json" && ds.HasErrors() {
			if err := diag.WriteJSON(cmd.OutOrStdout(), ds); err != nil {
				return p, exitf(exitUsage, "%v", err)
			}
		} else if err := diag.WriteText(cmd.ErrOrStderr(), ds, diag.TextOptions{Color: useColor(os.Stderr), ToolVersion: version}); err != nil {
			return p, exitf(exitUsage, "%v", err)
		}
		if ds.HasErrors() {
			return p, exitCode(exitFailed)
		}
	}
	return p, nil
}

// presetJSON is the stable JSON form of a resolved preset: {"name", "rows"}.
func presetJSON(p plan.Preset) plan.Preset {
	if p.Rows == nil {
		p.Rows = []plan.PresetRow{}
	}
	return p
}

// writePresetYAML writes a resolved preset in the format of the built-in
// preset files, so its output reads like one.
func writePresetYAML(w io.Writer, p plan.Preset) error {
	type row struct {
		ID       string         `yaml:"id"`
		Use      string         `yaml:"use"`
		Disabled bool           `yaml:"disabled,omitempty"`
		Config   map[string]any `yaml:"config,omitempty"`
	}
	doc := struct {
		Description string `yaml:"description"`
		Rows        []row  `yaml:"rows"`
	}{Description: "resolved from " + p.Name}
	for _, r := range p.Rows {
		cfg, _ := wholeNumbers(r.Config).(map[string]any)
		if r.Config == nil {
			cfg = nil
		}
		doc.Rows = append(doc.Rows, row{r.ID, r.Use, r.Disabled, cfg})
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}

// presetsJSONOut writes v as indented JSON without HTML escaping.
func presetsJSONOut(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
