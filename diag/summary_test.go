package diag

import "testing"

func TestListSummary(t *testing.T) {
	var two List
	two.Errorf("b.yml", Pos{Line: 2, Col: 1}, "E-B", "", "second")
	two.Errorf("a.yml", Pos{Line: 1, Col: 3}, "E-A", "rename it", "first")
	cases := []struct {
		name string
		l    List
		want string
	}{
		{"empty", nil, ""},
		{"sorted, fix only when given", two,
			"a.yml:1:3: error E-A first (fix: rename it)\nb.yml:2:1: error E-B second"},
	}
	for _, c := range cases {
		if got := c.l.Summary(); got != c.want {
			t.Errorf("%s: Summary() = %q, want %q", c.name, got, c.want)
		}
	}
}
