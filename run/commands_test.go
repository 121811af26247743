package run

import (
	"testing"

	"github.com/agentlab/agentlab/compile/form"
)

// TestPrintedCommandsWorkAsPrinted: the approve and resume commands a run
// prints reach the same data directory, name a person the node accepts,
// and survive a shell (brackets, spaces, quotes).
func TestPrintedCommandsWorkAsPrinted(t *testing.T) {
	t.Setenv("AGENTLAB_DATA_DIR", "")
	req := form.Form{{Name: "ticket", Type: form.String, Required: true}}
	cases := []struct {
		name, dataDir, node string
		assignees           []string
		fm                  form.Form
		want                string
	}{
		{"default data dir, assignees", ".agentlab", "review", []string{"alice", "bob"}, nil,
			"agentlab approve R review --decision approve --by alice"},
		{"no assignees: a placeholder", ".agentlab", "review", nil, nil,
			"agentlab approve R review --decision approve --by …"},
		{"other data dir", "data", "review", []string{"alice"}, nil,
			"agentlab approve R review --decision approve --by alice --data-dir data"},
		{"loop node, hostile names", "my data", "each[2].gate", []string{"o'brien x"}, req,
			`agentlab approve R 'each[2].gate' --decision approve --by 'o'\''brien x' --field ticket=… --data-dir 'my data'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ApproveCommand(c.dataDir, "R", c.node, c.assignees, c.fm); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	if got := ResumeCommand("./.agentlab", "R"); got != "agentlab resume R" {
		t.Errorf("resume in the default data dir: %s", got)
	}
	t.Setenv("AGENTLAB_DATA_DIR", "/srv/al")
	if got := ResumeCommand("/srv/al", "R"); got != "agentlab resume R" {
		t.Errorf("resume in $AGENTLAB_DATA_DIR: %s", got)
	}
	if got := ResumeCommand(".agentlab", "R"); got != "agentlab resume R --data-dir .agentlab" {
		t.Errorf("resume in ./.agentlab while $AGENTLAB_DATA_DIR is set: %s", got)
	}
}
