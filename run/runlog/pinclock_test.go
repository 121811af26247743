package runlog

import (
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
)

func TestPinClock(t *testing.T) {
	epoch := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	before := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		epoch *time.Time
		want  time.Time
	}{
		{"pinned", &epoch, epoch},
		{"nil keeps the clock", nil, before},
	}
	for _, c := range cases {
		r, err := Create(t.TempDir(), "r1")
		if err != nil {
			t.Fatal(err)
		}
		r.SetClock(func() time.Time { return before })
		r.PinClock(c.epoch)
		if got, want := r.Now(), chain.FormatTime(c.want); got != want {
			t.Errorf("%s: Now() = %s, want %s", c.name, got, want)
		}
		r.Close()
	}
}
