package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentlab/agentlab/internal/s3fake"
)

// TestSharedStoreScripts runs the scripts of testdata/script_store, each
// against its own in-process S3-compatible server (bucket "team"), whose
// URL is $S3 (s3://team/agentlab?endpoint=…&path_style=true).
func TestSharedStoreScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script_store",
		Setup: func(env *testscript.Env) error {
			srv, err := s3fake.New("team")
			if err != nil {
				return err
			}
			env.Defer(srv.Close)
			for _, kv := range s3fake.Env {
				env.Setenv(kv[0], kv[1])
			}
			env.Setenv("CI", "true")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("S3", "s3://team/agentlab?endpoint="+srv.URL+"&path_style=true")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"replace":   cmdReplace,
			"jsonvalid": cmdJSONValid,
		},
	})
}
