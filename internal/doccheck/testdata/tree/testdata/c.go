package c

var fixture = "E-TREE-FIXTURE"
