package redact

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// credentialWord matches one word of a name that says its value is a
// credential: a long word also at the end of a compound (APIKEY,
// ACCESSTOKEN, DBPASSWORD), a short one only whole (PAT, but not EXPAT;
// AUTH, but not AUTHOR).
var credentialWord = lazyre.New(`^(.*(key|token|secret|password|passwd|credentials?|cookie|signature)|pass|pwd|creds?|auth|authorization|session|private|sig|dsn|pat)$`)

// CredentialName reports whether a variable or parameter name says its
// value is a credential (NOTES_TOKEN, API_KEY, DB_PASSWORD, GITHUB_PAT,
// api-key, sig): one of its words, split at anything but a letter or a
// digit, is a credential word.
func CredentialName(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if credentialWord.MatchString(w) {
			return true
		}
	}
	return false
}

// AddURL registers the credentials a URL carries: the password of its
// user information and the values of query parameters whose names say
// they are credentials (?api-key=…, ?token=…). Other parameters
// (?api-version=2024-02-01) are settings and stay readable. s that does
// not parse registers nothing.
func AddURL(s string) {
	u, err := url.Parse(s)
	if err != nil {
		return
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			Add(pw)
		}
	}
	for k, vs := range u.Query() {
		if CredentialName(k) {
			for _, v := range vs {
				Add(v)
			}
		}
	}
}
