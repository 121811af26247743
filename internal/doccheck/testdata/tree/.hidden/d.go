package d

var hidden = "E-TREE-HIDDEN"
