package tools

import "os"

// lookupEnv is the default secret source: the environment.
func lookupEnv(name string) (string, bool) { return os.LookupEnv(name) }
