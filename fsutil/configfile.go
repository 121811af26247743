package fsutil

// ConfigFileCap bounds a configuration file (agentlab.toml, the user's
// config.toml): a few kilobytes in practice.
const ConfigFileCap = 4 << 20

// ReadConfigFile reads a configuration file whole, refusing one over
// ConfigFileCap and one that is not a regular file: an agentlab.toml
// that is a FIFO (a tar archive can carry one) or a link to /dev/zero
// would otherwise hang every command, beyond the reach of a signal, or
// fill the memory. A missing file is an error that matches
// fs.ErrNotExist, as with os.ReadFile.
func ReadConfigFile(path string) ([]byte, error) {
	return ReadFileCapped(path, ConfigFileCap, "keep the configuration file under 4 MiB")
}
