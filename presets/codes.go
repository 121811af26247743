package presets

// Diagnostic codes reported for preset patch files. They are stable and
// documented in docs/presets.md; tools and CI may match on them.
const (
	// CodeYAML: the file is not valid YAML.
	CodeYAML = "E-PRESET-YAML"
	// CodeRead: the file cannot be read.
	CodeRead = "E-PRESET-READ"
	// CodeSchema: a value has the wrong shape (a list where a mapping belongs, …).
	CodeSchema = "E-PRESET-SCHEMA"
	// CodeUnknownKey: a key that the format does not define.
	CodeUnknownKey = "E-PRESET-UNKNOWN-KEY"
	// CodeDuplicateKey: the same key twice in one mapping.
	CodeDuplicateKey = "E-PRESET-DUPLICATE-KEY"
	// CodeMissingKey: a required key is absent.
	CodeMissingKey = "E-PRESET-MISSING-KEY"
	// CodeBadID: a row id that does not match [a-z][a-z0-9_.-]*.
	CodeBadID = "E-PRESET-BAD-ID"
	// CodeMissingID: an operation names a row id that the preset does not have.
	CodeMissingID = "E-PRESET-MISSING-ID"
	// CodeDuplicateID: an insert adds a row whose id already exists.
	CodeDuplicateID = "E-PRESET-DUPLICATE-ID"
	// CodeConflict: two operations on the same row contradict each other.
	CodeConflict = "E-PRESET-CONFLICT"
	// CodeCycle: patch bases refer back to a patch already in the chain.
	CodeCycle = "E-PRESET-CYCLE"
	// CodeUnknownBase: base is neither a built-in preset nor a readable patch file.
	CodeUnknownBase = "E-PRESET-UNKNOWN-BASE"
	// CodeUnknownPreset: a preset name that is neither built in nor a file.
	CodeUnknownPreset = "E-PRESET-UNKNOWN"
	// CodeUse: a row's use is not one of the known row kinds.
	CodeUse = "E-PRESET-USE"
	// CodeConfig: a config value is missing, of the wrong type or out of range.
	CodeConfig = "E-PRESET-CONFIG"
	// CodeConsistency: the resolved rows contradict each other (two enabled
	// personas, ptc presentation without run_code, compress_at ≥ wrap_up_at, …).
	CodeConsistency = "E-PRESET-CONSISTENCY"
)
