package run

import (
	"os"

	sdk "github.com/agentlab/agentlab/presets/ptc"
)

// newPTC returns the host's code-mode chain: the PTC_* environment over
// the [ptc] table of the nearest agentlab.toml above baseDir, for the
// run's actor (or $USER). An agentlab.toml that cannot be parsed is a
// usage error, as it is for `agentlab ptc decide`.
func newPTC(baseDir, actor string) (func(title string, toolsets []string) sdk.Decision, error) {
	var file *sdk.FileConfig
	if baseDir != "" {
		f, err := sdk.LoadFileConfig(baseDir)
		if err != nil {
			return nil, usage("%v", err)
		}
		file = f
	}
	cfg, _ := sdk.ConfigFromEnv(os.Getenv, file) // the warnings are in cfg too
	user := actor
	if user == "" {
		user = os.Getenv("USER")
	}
	return func(title string, toolsets []string) sdk.Decision {
		return sdk.Decide(cfg, user, toolsets, title)
	}, nil
}
