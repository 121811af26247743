package tree

const (
	// CodeConst is found as a constant.
	CodeConst = "E-TREE-CONST"
)

func f() []string {
	return []string{"W-TREE-LIT",
		`H-TREE`, "not a code", "E-tree-lower", "X-TREE"}
}

func g(family string) string { return "E-" + family }

func h(n int) string { return sprintf("W-TREE-%d", n) }
