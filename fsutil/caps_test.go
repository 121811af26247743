package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigureCapsRefusesWhatAnOperatorMistypes sets the caps the ways an
// operator would, right and wrong: a wrong key or a size that is not
// positive is an error naming it (a cap that silently stays at its
// default, or that refuses everything, is what this prevents); the
// variables win over the file.
func TestConfigureCapsRefusesWhatAnOperatorMistypes(t *testing.T) {
	t.Cleanup(func() {
		for _, c := range Caps {
			c.Reset()
		}
	})
	tests := []struct {
		name    string
		toml    string
		env     map[string]string
		wantErr string
		want    map[*ByteCap]int64
	}{
		{name: "defaults", want: map[*ByteCap]int64{FlowCap: 32 << 20, SourceCap: 1 << 30, VerifyCap: 2 << 30}},
		{name: "file sizes", toml: "[limits]\nsource_bytes = \"4GiB\"\nflow_bytes = 1000\ninput_bytes = \"2 MB\"\n",
			want: map[*ByteCap]int64{SourceCap: 4 << 30, FlowCap: 1000, InputCap: 2e6}},
		{name: "variable over file", toml: "[limits]\nsource_bytes = 10\n", env: map[string]string{"AGENTLAB_MAX_SOURCE_BYTES": "20KiB"},
			want: map[*ByteCap]int64{SourceCap: 20 << 10}},
		{name: "zero in file", toml: "[limits]\nflow_bytes = 0\n", wantErr: "flow_bytes: 0 is not a positive size"},
		{name: "negative in file", toml: "[limits]\nverify_bytes = -1\n", wantErr: "verify_bytes: -1 is not a positive size"},
		{name: "negative string", toml: "[limits]\nverify_bytes = \"-1MiB\"\n", wantErr: "is not a positive size"},
		{name: "not a size", toml: "[limits]\ninput_bytes = \"lots\"\n", wantErr: `"lots" is not a size`},
		{name: "a boolean", toml: "[limits]\ninput_bytes = true\n", wantErr: "true is not a size"},
		{name: "unknown key", toml: "[limits]\nsource_byte = 10\n", wantErr: "source_byte is not a cap agentlab knows"},
		{name: "not a table", toml: "limits = 5\n", wantErr: "limits is not a table"},
		{name: "zero variable", env: map[string]string{"AGENTLAB_MAX_EVENTS_BYTES": "0"}, wantErr: `AGENTLAB_MAX_EVENTS_BYTES: "0" is not a positive size`},
		{name: "negative variable", env: map[string]string{"AGENTLAB_MAX_RECORD_BYTES": "-5"}, wantErr: `AGENTLAB_MAX_RECORD_BYTES: "-5" is not a positive size`},
		{name: "overflowing variable", env: map[string]string{"AGENTLAB_MAX_RECORD_BYTES": "9000000000TiB"}, wantErr: "too large a size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := ""
			if tt.toml != "" {
				file = "agentlab.toml"
			}
			err := ConfigureCaps(file, []byte(tt.toml), func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for c, n := range tt.want {
				if c.Bytes() != n {
					t.Errorf("%s = %d, want %d", c.Key, c.Bytes(), n)
				}
			}
		})
	}
}

// TestTooLargeNamesTheCapAndHowToRaiseIt: a file over a configured cap is
// refused before it is read, with the cap's key, value, where it was set
// and both ways to raise it.
func TestTooLargeNamesTheCapAndHowToRaiseIt(t *testing.T) {
	t.Cleanup(SourceCap.Reset)
	p := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(p, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ConfigureCaps("", nil, func(k string) string {
		if k == SourceCap.Env {
			return "1KiB"
		}
		return ""
	}); err != nil {
		t.Fatal(err)
	}
	_, err := SourceCap.ReadFile(p)
	var big *TooLargeError
	if !errors.As(err, &big) || big.Limit != 1024 {
		t.Fatalf("read: %v", err)
	}
	for _, want := range []string{"2048 bytes", "source_bytes cap is 1 KiB", "(AGENTLAB_MAX_SOURCE_BYTES)", `source_bytes = "<size>" under [limits] in agentlab.toml`, "AGENTLAB_MAX_SOURCE_BYTES=<size>"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if err := SourceCap.Set(0, "test"); err == nil {
		t.Error("a cap of 0 was put in force")
	}
}

func TestParseAndFormatBytes(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "64MiB": 64 << 20, " 2 GiB ": 2 << 30, "3KB": 3000, "10B": 10} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5GiB", "GiB", "12 apples"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
	for n, want := range map[int64]string{2 << 30: "2 GiB", 1000: "1000 bytes", 1536: "1536 bytes", 64 << 20: "64 MiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
