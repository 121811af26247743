package presets

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentlab/agentlab/plan"
)

// WriteDiff prints changes as aligned text, one line per changed field:
//
//	~ presentation    config.mode: "native" -> "ptc"
//	+ tool.extra      use: "tool", config: {"name":"http_fetch"}
//	- compaction
//
// "+" is an added row, "-" a removed one, "~" a changed or moved one.
func WriteDiff(w io.Writer, changes []RowChange) error {
	if len(changes) == 0 {
		_, err := fmt.Fprintln(w, "no differences")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range changes {
		switch c.Change {
		case ChangeAdded:
			fmt.Fprintf(tw, "+ %s\t%s\n", c.ID, rowSummary(*c.B))
		case ChangeRemoved:
			fmt.Fprintf(tw, "- %s\t%s\n", c.ID, rowSummary(*c.A))
		default:
			for i, f := range c.Fields {
				id := c.ID
				if i > 0 {
					id = ""
				}
				mark := "~ "
				if i > 0 {
					mark = "  "
				}
				fmt.Fprintf(tw, "%s%s\t%s\n", mark, id, f)
			}
		}
	}
	return tw.Flush()
}

// rowSummary renders a row's use, state and config in one line.
func rowSummary(r plan.PresetRow) string {
	parts := []string{"use: " + show(r.Use)}
	if r.Disabled {
		parts = append(parts, "disabled: true")
	}
	if len(r.Config) > 0 {
		parts = append(parts, "config: "+show(r.Config))
	}
	return strings.Join(parts, ", ")
}

// WriteRows prints a preset's rows as an aligned table: ID, USE, STATE, CONFIG.
func WriteRows(w io.Writer, rows []plan.PresetRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSE\tSTATE\tCONFIG")
	for _, r := range rows {
		state := "on"
		if r.Disabled {
			state = "off"
		}
		cfg := "{}"
		if len(r.Config) > 0 {
			cfg = show(r.Config)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Use, state, cfg)
	}
	return tw.Flush()
}
