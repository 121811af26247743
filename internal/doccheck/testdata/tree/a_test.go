package tree

var testOnly = "E-TREE-TEST"
