package ptc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func decideEnv(m map[string]string, user string, toolsets []string, title string) Decision {
	cfg, _ := ConfigFromEnv(env(m), nil)
	return Decide(cfg, user, toolsets, title)
}

// Named cases, one per link of the chain (alice is in bucket 37, carol in 60).
func TestDecideChain(t *testing.T) {
	sales := []string{"sales"}
	tests := []struct {
		name     string
		env      map[string]string
		user     string
		toolsets []string
		title    string
		want     bool
		reason   string
	}{
		{"unset mode is off", nil, "alice", sales, "", false, "PTC_MODE is off"},
		{"off", map[string]string{EnvMode: "off"}, "alice", sales, "", false, "PTC_MODE is off"},
		{"invalid mode is off", map[string]string{EnvMode: "always"}, "alice", sales, "", false, "PTC_MODE is off"},
		{"on", map[string]string{EnvMode: "on"}, "alice", sales, "", true, "every check"},
		{"on ignores user allowlist", map[string]string{EnvMode: "on", EnvUserAllowlist: "bob"}, "alice", sales, "", true, ""},
		{"partial listed", map[string]string{EnvMode: "partial", EnvUserAllowlist: "bob, alice"}, "alice", sales, "", true, ""},
		{"partial not listed", map[string]string{EnvMode: "partial", EnvUserAllowlist: "bob"}, "alice", sales, "", false, "not in PTC_USER_ALLOWLIST"},
		{"partial exact match", map[string]string{EnvMode: "partial", EnvUserAllowlist: "Alice"}, "alice", sales, "", false, "not in PTC_USER_ALLOWLIST"},
		{"partial empty allowlist", map[string]string{EnvMode: "partial"}, "alice", sales, "", false, "not in PTC_USER_ALLOWLIST"},
		{"no toolsets", map[string]string{EnvMode: "on"}, "alice", nil, "", false, "no toolsets"},
		{"blocklisted", map[string]string{EnvMode: "on", EnvToolsetBlocklist: "hr"}, "alice", []string{"sales", "hr"}, "", false, `"hr" is in PTC_TOOLSET_BLOCKLIST`},
		{"blocklist wins over allowlist", map[string]string{EnvMode: "on", EnvToolsetBlocklist: "sales", EnvToolsetAllowlist: "sales"}, "alice", sales, "", false, "BLOCKLIST"},
		{"allowlisted", map[string]string{EnvMode: "on", EnvToolsetAllowlist: "sales,hr"}, "alice", sales, "", true, ""},
		{"one toolset not allowlisted", map[string]string{EnvMode: "on", EnvToolsetAllowlist: "sales"}, "alice", []string{"sales", "hr"}, "", false, `"hr" is not in PTC_TOOLSET_ALLOWLIST`},
		{"rollout in", map[string]string{EnvMode: "on", EnvRolloutPercent: "38"}, "alice", sales, "", true, ""},
		{"rollout out at bucket", map[string]string{EnvMode: "on", EnvRolloutPercent: "37"}, "alice", sales, "", false, "bucket 37"},
		{"rollout other salt", map[string]string{EnvMode: "on", EnvRolloutPercent: "38", EnvRolloutSalt: "other"}, "alice", sales, "", false, "bucket 47"},
		{"rollout 100", map[string]string{EnvMode: "on", EnvRolloutPercent: "100"}, "dave", sales, "", true, ""},
		{"rollout above 100", map[string]string{EnvMode: "on", EnvRolloutPercent: "250"}, "dave", sales, "", true, ""},
		{"rollout 0", map[string]string{EnvMode: "on", EnvRolloutPercent: "0"}, "alice", sales, "", false, "is 0"},
		{"rollout negative", map[string]string{EnvMode: "on", EnvRolloutPercent: "-5"}, "alice", sales, "", false, "is -5"},
		{"rollout not a number", map[string]string{EnvMode: "on", EnvRolloutPercent: "all"}, "alice", sales, "", false, "not a number"},
		{"opt-in with marker", map[string]string{EnvMode: "on", EnvDebug: "opt-in"}, "alice", sales, "Try UsePTC here", true, "opts in"},
		{"opt-in without marker", map[string]string{EnvMode: "on", EnvDebug: "opt-in"}, "alice", sales, "Plain", false, "does not contain"},
		{"legacy true is opt-in", map[string]string{EnvMode: "on", EnvDebug: "true"}, "alice", sales, "plain", false, "opt-in"},
		{"opt-out without marker", map[string]string{EnvMode: "on", EnvDebug: "opt-out"}, "alice", sales, "plain", true, ""},
		{"opt-out with marker", map[string]string{EnvMode: "on", EnvDebug: "opt-out"}, "alice", sales, "NONPTC node", false, "contains"},
		{"invalid debug: no filter", map[string]string{EnvMode: "on", EnvDebug: "maybe"}, "alice", sales, "nonptc", true, ""},
		{"opt-in cannot enable when off", map[string]string{EnvDebug: "opt-in"}, "alice", sales, "useptc", false, "PTC_MODE is off"},
		{"opt-in cannot enable outside rollout", map[string]string{EnvMode: "on", EnvRolloutPercent: "10", EnvDebug: "opt-in"}, "carol", sales, "useptc", false, "bucket 60"},
		{"partial: an empty user is never listed", map[string]string{EnvMode: "partial", EnvUserAllowlist: "bob,,"}, "", sales, "", false, "no user is known"},
		{"rollout: an empty user is never in", map[string]string{EnvMode: "on", EnvRolloutPercent: "99"}, "", sales, "", false, "no user is known"},
		{"rollout 100 needs no user", map[string]string{EnvMode: "on", EnvRolloutPercent: "100"}, "", sales, "", true, ""},
		{"opt-in cannot enable for unlisted user", map[string]string{EnvMode: "partial", EnvUserAllowlist: "bob", EnvDebug: "opt-in"}, "alice", sales, "useptc", false, "PTC_USER_ALLOWLIST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decideEnv(tt.env, tt.user, tt.toolsets, tt.title)
			if d.Enabled != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("got enabled=%v reason=%q, want %v with %q", d.Enabled, d.Reason, tt.want, tt.reason)
			}
		})
	}
}

func TestDecideDebugFields(t *testing.T) {
	for _, tt := range []struct {
		debug   string
		mode    any // nil or string
		sandbox bool
	}{
		{"", nil, false},
		{"opt-in", "opt-in", true},
		{"true", "opt-in", true},
		{"OPT-OUT", "opt-out", true},
		{"bogus", nil, true},
	} {
		d := decideEnv(map[string]string{EnvDebug: tt.debug}, "alice", []string{"s"}, "")
		var got any
		if d.DebugMode != nil {
			got = *d.DebugMode
		}
		if got != tt.mode {
			t.Errorf("PTC_DEBUG=%q: debug_mode %v, want %v", tt.debug, got, tt.mode)
		}
		// Always present, with an explicit value.
		if want := map[bool]string{true: "true", false: "false"}[tt.sandbox]; d.SandboxEnv[SandboxDebugEnv] != want {
			t.Errorf("PTC_DEBUG=%q: sandbox env %v, want %s=%s", tt.debug, d.SandboxEnv, SandboxDebugEnv, want)
		}
		if tt.debug == "bogus" && len(d.Warnings) != 1 {
			t.Errorf("PTC_DEBUG=bogus: warnings %v", d.Warnings)
		}
	}
}

// TestDecideTruthTable runs every combination of mode × user-allowlist
// membership × toolset lists × rollout × debug mode × title and compares
// with the chain written as one boolean formula.
func TestDecideTruthTable(t *testing.T) {
	modes := []string{"", "off", "on", "partial", " ON ", "bogus"}
	userLists := []string{"", "alice", "bob,carol"}
	users := []string{"alice", "carol"} // buckets 37 and 60
	toolsetSets := [][]string{nil, {"sales"}, {"sales", "hr"}}
	allow := []string{"", "sales", "sales,hr"}
	block := []string{"", "hr"}
	rollouts := []string{"", "0", "50", "100", "x"}
	debugs := []string{"", "opt-in", "true", "opt-out", "nope"}
	titles := []string{"", "UsePTC please", "a NonPTC node", "useptc nonptc"}
	bucket := map[string]float64{"alice": 37, "carol": 60}
	n := 0
	for _, mode := range modes {
		for _, ul := range userLists {
			for _, user := range users {
				for _, ts := range toolsetSets {
					for _, al := range allow {
						for _, bl := range block {
							for _, ro := range rollouts {
								for _, dbg := range debugs {
									for _, title := range titles {
										m := map[string]string{EnvMode: mode, EnvUserAllowlist: ul, EnvToolsetAllowlist: al, EnvToolsetBlocklist: bl, EnvRolloutPercent: ro, EnvDebug: dbg}
										got := decideEnv(m, user, ts, title).Enabled
										md := strings.ToLower(strings.TrimSpace(mode))
										listed := strings.Contains(","+ul+",", ","+user+",")
										modeOK := md == "on" || (md == "partial" && listed)
										blocked := bl == "hr" && len(ts) == 2
										allowed := al == "" || al == "sales,hr" || len(ts) == 1
										inRollout := ro == "" || ro == "100" || (ro == "50" && bucket[user] < 50)
										lt := strings.ToLower(title)
										debugOK := true
										switch dbg {
										case "opt-in", "true":
											debugOK = strings.Contains(lt, "useptc")
										case "opt-out":
											debugOK = !strings.Contains(lt, "nonptc")
										}
										want := modeOK && len(ts) > 0 && !blocked && allowed && inRollout && debugOK
										if got != want {
											t.Fatalf("%v user=%s toolsets=%v title=%q: enabled=%v, want %v", m, user, ts, title, got, want)
										}
										n++
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if n < 10000 {
		t.Fatalf("only %d combinations", n)
	}
}

// TestDebugNeverEnables: for any PTC_DEBUG value and title, the result is
// never "enabled" when the chain without the debug filter says no.
func TestDebugNeverEnables(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pool := []string{"", "opt-in", "OPT-IN", "true", "True", "opt-out", "optin", "1", "yes", " opt-out ", "useptc", "nonptc"}
	titlePool := []string{"", "useptc", "USEPTC", "nonptc", "x useptc nonptc", "plain"}
	modes := []string{"", "off", "on", "partial", "bogus"}
	randStr := func() string {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = byte(r.IntN(128))
		}
		return string(b)
	}
	for i := range 20000 {
		base := map[string]string{
			EnvMode:             modes[r.IntN(len(modes))],
			EnvUserAllowlist:    []string{"", "alice", "bob"}[r.IntN(3)],
			EnvToolsetBlocklist: []string{"", "hr"}[r.IntN(2)],
			EnvToolsetAllowlist: []string{"", "sales"}[r.IntN(2)],
			EnvRolloutPercent:   []string{"", "0", "30", "70", "100", "z"}[r.IntN(6)],
		}
		user := []string{"alice", "bob", "carol", "dave"}[r.IntN(4)]
		toolsets := [][]string{nil, {"sales"}, {"hr"}, {"sales", "hr"}}[r.IntN(4)]
		without := decideEnv(base, user, toolsets, "").Enabled
		dbg := pool[r.IntN(len(pool))]
		title := titlePool[r.IntN(len(titlePool))]
		if i%2 == 1 {
			dbg, title = randStr(), randStr()
		}
		with := map[string]string{EnvDebug: dbg}
		for k, v := range base {
			with[k] = v
		}
		got := decideEnv(with, user, toolsets, title).Enabled
		if got && !without {
			t.Fatalf("PTC_DEBUG=%q title=%q enabled PTC that the chain refused (%v, user %s, toolsets %v)", dbg, title, base, user, toolsets)
		}
		md := strings.ToLower(strings.TrimSpace(base[EnvMode]))
		if got && (md != "on" && md != "partial" || md == "partial" && base[EnvUserAllowlist] != user) {
			t.Fatalf("enabled with mode %q and allowlist %q for %s", base[EnvMode], base[EnvUserAllowlist], user)
		}
	}
}

func ExampleDecide() {
	getenv := env(map[string]string{EnvMode: "partial", EnvUserAllowlist: "alice", EnvDebug: "opt-in"})
	cfg, _ := ConfigFromEnv(getenv, nil)
	d := Decide(cfg, "alice", []string{"sales"}, "Weekly brief (useptc)")
	fmt.Println(d.Enabled, *d.DebugMode)
	fmt.Println(d.Reason)
	// Output:
	// true opt-in
	// the chain allows PTC and the title opts in with "useptc"
}
