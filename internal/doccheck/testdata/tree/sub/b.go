package sub

func Warn() string {
	return "W-TREE-LIT"
}
