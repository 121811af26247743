package sandbox

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestDiskBudgetStopsManyFiles: each file stays under the per-file limit,
// but code that writes file after file into its working directory — or
// into /tmp — is stopped once the total passes the disk budget, under
// every backend.
func TestDiskBudgetStopsManyFiles(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	for _, b := range backends(t) {
		for _, where := range []string{".", "/tmp"} {
			t.Run(string(b)+" "+where, func(t *testing.T) {
				dir := workdir(t)
				code := `import os, time
where = "` + where + `"
if where == "/tmp":
    where = os.environ.get("TMP", "/tmp")
chunk = b"x" * (1 << 20)
for i in range(40):
    with open(os.path.join(where, "f%d" % i), "wb") as f:
        for _ in range(2):
            f.write(chunk)
    time.sleep(0.03)
print("wrote everything")
`
				res, err := Run(context.Background(), Spec{Language: "python", Code: code, Dir: dir, Backend: b,
					DiskMB: 8, FileSizeMB: 4, Timeout: 60 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(res.Stdout), "wrote everything") {
					t.Fatalf("80 MiB written under an 8 MiB budget: %+v", res)
				}
				// Stopped by the watcher, or (bwrap's /tmp, a tmpfs of the
				// budget's size) refused by the file system.
				if !strings.Contains(res.KillReason, "disk budget") && !strings.Contains(string(res.Stderr), "No space left") {
					t.Errorf("stopped for another reason: %q, stderr %s", res.KillReason, res.Stderr)
				}
			})
		}
	}
}
