package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/s3fake"
)

// storeCmd runs agentlab with args and returns its output and exit code.
func storeCmd(t *testing.T, exe string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CI=true", "NO_COLOR=1", "SOURCE_DATE_EPOCH=1700000000")
	for _, kv := range s3fake.Env {
		cmd.Env = append(cmd.Env, kv[0]+"="+kv[1])
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// published is a run published to a fake bucket.
type published struct {
	id, url, data string // run id, store URL, the data dir that holds the run
	srv           *s3fake.Server
}

// publishedRun runs traceable-weekly into a data dir and publishes it to
// a fresh fake bucket.
func publishedRun(t *testing.T, exe string) published {
	t.Helper()
	srv := s3fake.Start(t, "team")
	url := "s3://team/agentlab?endpoint=" + srv.URL + "&path_style=true"
	dir := t.TempDir()
	flow, _ := filepath.Abs("../../examples/traceable-weekly/flow.yml")
	out, code := storeCmd(t, exe, "run", flow, "--data-dir", filepath.Join(dir, "d"), "--out", filepath.Join(dir, "out"), "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	var res struct{ Run string }
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
		t.Fatalf("run output: %v\n%s", err, out)
	}
	if out, code := storeCmd(t, exe, "publish", res.Run, "--data-dir", filepath.Join(dir, "d"), "--store", url); code != 0 {
		t.Fatalf("publish: exit %d\n%s", code, out)
	}
	return published{id: res.Run, url: url, data: filepath.Join(dir, "d"), srv: srv}
}

// TestRepublishRestoresObjectsDeletedUnderItsSeal deletes, behind
// agentlab's back, an artifact and the event log of a run whose SEAL is
// committed — the bucket's lifecycle rule or an operator's cleanup — so
// that every pull of it fails. Publishing the run again from the machine
// that made it puts back exactly what is missing, rewrites nothing that is
// there, and the run pulls and verifies again.
func TestRepublishRestoresObjectsDeletedUnderItsSeal(t *testing.T) {
	exe := agentlabExe(t)
	p := publishedRun(t, exe)
	id, url, srv, data := p.id, p.url, p.srv, p.data
	var artifact, events string
	for _, k := range srv.Keys {
		switch {
		case strings.Contains(k, "/artifacts/") && artifact == "":
			artifact = k
		case strings.HasSuffix(k, "/events.jsonl"):
			events = k
		}
	}
	if artifact == "" || events == "" {
		t.Fatalf("the publish wrote no artifact or event log: %v", srv.Keys)
	}
	for _, k := range []string{artifact, events} {
		if _, err := srv.Backend.DeleteObject("team", strings.TrimPrefix(k, "/team/")); err != nil {
			t.Fatal(err)
		}
	}
	if out, code := storeCmd(t, exe, "pull", id, "--store", url, "--data-dir", t.TempDir()); code == 0 {
		t.Fatalf("a run with deleted objects pulled:\n%s", out)
	}
	puts := srv.Puts()
	out, code := storeCmd(t, exe, "publish", id, "--data-dir", data, "--store", url)
	if code != 0 || !strings.Contains(out, "already in") || !strings.Contains(out, "2 missing object(s) restored") {
		t.Fatalf("publish again: exit %d\n%s", code, out)
	}
	if n := srv.Puts() - puts; n != 4 { // the probe's two writes, then the two missing objects
		t.Errorf("publishing again made %d writes, not the probe's two and the two missing objects", n)
	}
	pulled := t.TempDir()
	if out, code := storeCmd(t, exe, "pull", id, "--store", url, "--data-dir", pulled); code != 0 {
		t.Fatalf("pull after the repair: exit %d\n%s", code, out)
	}
	if out, code := storeCmd(t, exe, "verify", filepath.Join(pulled, "runs", id)); code != 0 {
		t.Fatalf("verify the pulled run: exit %d\n%s", code, out)
	}
	if out, code := storeCmd(t, exe, "publish", id, "--data-dir", data, "--store", url); code != 0 || !strings.Contains(out, "nothing was written") {
		t.Fatalf("a third publish: exit %d\n%s", code, out)
	}
}

// TestStoreAnswering503ToEveryGetExitsTwo: a store that takes writes but
// answers 503 to every read (overloaded, half down) cannot be reached for
// what runs list --store and pull need, which is exit code 2, as the
// command reference says, with the server's answer in the message.
func TestStoreAnswering503ToEveryGetExitsTwo(t *testing.T) {
	exe := agentlabExe(t)
	p := publishedRun(t, exe)
	id, url := p.id, p.url
	p.srv.UnavailableGets.Store(true)
	for _, args := range [][]string{
		{"runs", "list", "--store", url},
		{"pull", id, "--store", url, "--data-dir", t.TempDir()},
	} {
		out, code := storeCmd(t, exe, args...)
		if code != 2 || !strings.Contains(out, "503") {
			t.Errorf("%v: exit %d, want 2 naming the 503\n%s", args[:2], code, out)
		}
	}
}
