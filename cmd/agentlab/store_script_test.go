package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/internal/argo"
	"github.com/agentlab/agentlab/run/store/bucket"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentlab/agentlab/internal/s3fake"
)

// TestSharedStoreScripts runs the scripts of testdata/script_store, each
// against its own in-process S3-compatible server (bucket "team"), whose
// URL is $S3 (s3://team/agentlab?endpoint=…&path_style=true); $S3B is
// another prefix of the same bucket.
//
// With AGENTLAB_TEST_S3_ENDPOINT set (scripts/s3-e2e.sh starts a real
// S3-compatible server on 127.0.0.1 and sets it, with the credentials in
// AGENTLAB_TEST_S3_ACCESS_KEY and AGENTLAB_TEST_S3_SECRET_KEY), the scripts
// run against that server instead, each under a prefix of its own in the
// bucket AGENTLAB_TEST_S3_BUCKET.
func TestSharedStoreScripts(t *testing.T) {
	real := os.Getenv("AGENTLAB_TEST_S3_ENDPOINT")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script_store",
		Setup: func(env *testscript.Env) error {
			for _, kv := range s3fake.Env {
				env.Setenv(kv[0], kv[1])
			}
			env.Setenv("CI", "true")
			env.Setenv("NO_COLOR", "1")
			if real != "" {
				env.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("AGENTLAB_TEST_S3_ACCESS_KEY"))
				env.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("AGENTLAB_TEST_S3_SECRET_KEY"))
				// Scripts run in parallel: each gets a prefix of its own.
				prefix := fmt.Sprintf("agentlab-%d-%s", os.Getpid(), filepath.Base(env.WorkDir))
				env.Setenv("S3", "s3://"+os.Getenv("AGENTLAB_TEST_S3_BUCKET")+"/"+prefix+"?endpoint="+real+"&path_style=true")
				env.Setenv("S3B", "s3://"+os.Getenv("AGENTLAB_TEST_S3_BUCKET")+"/"+prefix+"-b?endpoint="+real+"&path_style=true")
				return nil
			}
			srv, err := s3fake.New("team")
			if err != nil {
				return err
			}
			env.Defer(srv.Close)
			env.Setenv("S3", "s3://team/agentlab?endpoint="+srv.URL+"&path_style=true")
			env.Setenv("S3B", "s3://team/other?endpoint="+srv.URL+"&path_style=true")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"replace":   cmdReplace,
			"jsonvalid": cmdJSONValid,
			"argorun":   cmdArgoRun,
			"s3cp":      cmdS3Copy,
			"s3ls":      cmdS3List,
		},
	})
}

// cmdArgoRun plays Argo for an exported workflow: it runs the tasks of the
// entry DAG in order, each as a separate agentlab process with a data dir
// of its own (as each pod has its own file system), so that the tasks
// share only the bucket. Parameters and raw artifacts are substituted as
// Argo would; a task with continueOn.failed may fail.
//
//	argorun workflow.yaml
func cmdArgoRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: argorun WORKFLOW.yaml")
	}
	var w argo.Workflow
	if err := yaml.Unmarshal([]byte(ts.ReadFile(args[0])), &w); err != nil {
		ts.Fatalf("argorun: %v", err)
	}
	templates := map[string]argo.Template{}
	for _, t := range w.Spec.Templates {
		templates[t.Name] = t
	}
	entry, ok := templates[w.Spec.Entrypoint]
	if !ok || entry.DAG == nil {
		ts.Fatalf("argorun: entrypoint %q is not a DAG template", w.Spec.Entrypoint)
	}
	done := map[string]bool{}
	for _, task := range entry.DAG.Tasks {
		for _, d := range task.Dependencies {
			if !done[d] {
				ts.Fatalf("argorun: task %s runs before its dependency %s", task.Name, d)
			}
		}
		t, ok := templates[task.Template]
		if !ok || t.Container == nil {
			ts.Fatalf("argorun: task %s: template %q is not a container", task.Name, task.Template)
		}
		dir := ts.MkAbs("task-" + task.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			ts.Fatalf("argorun: %v", err)
		}
		params := map[string]string{}
		files := map[string]string{}
		if task.Arguments != nil {
			for _, p := range task.Arguments.Parameters {
				params[p.Name] = p.Value
			}
			for _, a := range task.Arguments.Artifacts {
				for _, in := range t.Inputs.Artifacts {
					if in.Name == a.Name && a.Raw != nil {
						local := filepath.Join(dir, filepath.Base(in.Path))
						if err := os.WriteFile(local, []byte(a.Raw.Data), 0o644); err != nil {
							ts.Fatalf("argorun: %v", err)
						}
						files[in.Path] = local
					}
				}
			}
		}
		var argv []string
		for i, a := range t.Container.Args {
			for k, v := range params {
				a = strings.ReplaceAll(a, "{{inputs.parameters."+k+"}}", v)
			}
			if local, ok := files[a]; ok {
				a = local
			}
			if i > 0 && t.Container.Args[i-1] == "--data-dir" {
				a = filepath.Join(dir, "data")
			}
			argv = append(argv, a)
		}
		for _, e := range t.Container.Env {
			ts.Setenv(e.Name, e.Value)
		}
		err := ts.Exec(t.Container.Command[0], argv...)
		if err != nil && (task.ContinueOn == nil || !task.ContinueOn.Failed) {
			ts.Fatalf("argorun: task %s: %v", task.Name, err)
		}
		done[task.Name] = true
	}
}

// bucketOf opens the script's bucket ($S3), as a bucket writer would.
func bucketOf(ts *testscript.TestScript) *bucket.Bucket {
	l, err := bucket.ParseLocation(ts.Getenv("S3"))
	if err != nil {
		ts.Fatalf("$S3: %v", err)
	}
	for _, kv := range s3fake.Env {
		os.Setenv(kv[0], ts.Getenv(kv[0]))
	}
	b, err := bucket.Open(context.Background(), l)
	if err != nil {
		ts.Fatalf("open bucket: %v", err)
	}
	return b
}

// cmdS3Copy copies between a file of the script and an object of its
// bucket (a key under the $S3 prefix, written s3:KEY), to play someone
// with write access to the bucket:
//
//	s3cp s3:runs/ID/SEAL seal.txt
//	s3cp forged.html s3:@keyfile    (the key is the content of keyfile)
func cmdS3Copy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: s3cp SRC DST (one of them s3:KEY)")
	}
	b := bucketOf(ts)
	ctx := context.Background()
	src, dst := objectKey(ts, args[0]), objectKey(ts, args[1])
	if k, ok := strings.CutPrefix(src, "s3:"); ok {
		data, err := b.Get(ctx, b.Loc.Key(k), 1<<30)
		if err != nil {
			ts.Fatalf("s3cp: %v", err)
		}
		if err := os.WriteFile(ts.MkAbs(dst), data, 0o644); err != nil {
			ts.Fatalf("s3cp: %v", err)
		}
		return
	}
	k, ok := strings.CutPrefix(dst, "s3:")
	if !ok {
		ts.Fatalf("s3cp: one side must be s3:KEY")
	}
	if err := b.Put(ctx, b.Loc.Key(k), []byte(ts.ReadFile(src))); err != nil {
		ts.Fatalf("s3cp: %v", err)
	}
}

// objectKey reads s3:@FILE as s3: and the key the file holds (keys that
// depend on a run's id and seal are computed by the script).
func objectKey(ts *testscript.TestScript, arg string) string {
	if f, ok := strings.CutPrefix(arg, "s3:@"); ok {
		return "s3:" + strings.TrimSpace(ts.ReadFile(f))
	}
	return arg
}

// cmdS3List prints the keys under a prefix of the script's bucket to
// stdout, one a line.
//
//	s3ls runs/
func cmdS3List(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: s3ls PREFIX")
	}
	b := bucketOf(ts)
	var keys []string
	if err := b.List(context.Background(), args[0], "", func(k string, _ int64) error {
		keys = append(keys, k)
		return nil
	}); err != nil {
		ts.Fatalf("s3ls: %v", err)
	}
	ts.Stdout().Write([]byte(strings.Join(keys, "\n") + "\n"))
}

// TestPrintableEscapesControls: a run.json in a bucket, written by
// someone else, cannot send escape sequences to the terminal or break the
// table's lines through runs list --store.
func TestPrintableEscapesControls(t *testing.T) {
	if got := printable("\x1b]0;pwned\x07\x1b[31mRED\nx\ry"); strings.ContainsAny(got, "\x1b\x07\n\r") {
		t.Errorf("printable left a control character: %q", got)
	}
	if got := printable("formal 中文"); got != "formal 中文" {
		t.Errorf("printable changed plain text: %q", got)
	}
}
