package domain

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// A secret rule finds one kind of secret-shaped text. The rules are written
// from each vendor's documented token format, not copied from a scanner's
// rule set (docs/decisions.md#secret-redaction). Every pattern is RE2
// (package regexp): matching is linear in the text, so no content can make
// a rule run long.
type secretRule struct {
	// kind names the secret in the stored text and the answer.
	kind string
	// re is the pattern, compiled at its first use (lazily).
	re func() *regexp.Regexp
	// group is the submatch that is the secret (0: the whole match); the
	// rest of the match (a key name, "user:" of a URL) stays readable.
	group int
	// edges: the match must not continue a longer token on either side
	// (RE2 has no look-around; \b does not treat '-' as part of a token).
	edges bool
	// valid, when set, must accept the secret: it rejects placeholders
	// and low-entropy values that only look like secrets.
	valid func(string) bool
	// keys: the rule runs only when the text, in ASCII lower case,
	// contains one of them (most text contains none, and a literal search
	// is far cheaper than a pattern).
	keys []string
	// anchor: the pattern is written in lower case, starts with \A and
	// is tried on the text in ASCII lower case (same byte offsets) only
	// where one of keys occurs, reading at most anchorWindow bytes: a
	// literal search finds the few places worth trying, where regexp
	// would try a pattern that starts with an alternation (or a class)
	// at every byte. The secret is cut, and checked, from the original.
	anchor bool
	// left: the match must not follow a letter or digit (a key name
	// inside a longer word); scheme: it must (a URL's scheme).
	left, scheme bool
}

// lazily is expr compiled at its first use, once per process: most
// processes never redact anything, and compiling every rule when the
// package loaded was most of the time the program spent before main
// (docs/decisions.md#start-up).
func lazily(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// secretRules are tried in order; where two matches overlap, the earlier
// rule names the redaction.
var secretRules = []secretRule{
	{kind: "private-key", keys: []string{"private key"}, re: lazily(
		`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.\-]*)`)},
	{kind: "aws-access-key-id", keys: []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "apka"}, anchor: true,
		re: lazily(`\A[a-z0-9]{20}`), edges: true, valid: upperDigits},
	{kind: "aws-secret-access-key", keys: []string{"aws"}, anchor: true, re: lazily(
		`\Aaws[a-z0-9_\-. ]{0,24}?(?:secret|sk)[a-z_\-]{0,16}["']?[ \t]*(?:[:=]|=>)[ \t]*["']?([a-z0-9/+]{40})`), group: 1, edges: true, valid: mixed},
	{kind: "github-token", keys: []string{"gh", "github_pat_"}, re: lazily(`(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})`), edges: true},
	{kind: "slack-token", keys: []string{"xox", "xapp-"}, re: lazily(
		`(?:xox[abeposr]-[0-9]{6,}-[0-9A-Za-z-]{8,}|xapp-[0-9]-[A-Z0-9]{8,}-[0-9]{8,}-[0-9a-f]{32,})`), edges: true},
	{kind: "slack-webhook", keys: []string{"hooks.slack.com"}, re: lazily(`hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}`)},
	{kind: "stripe-secret-key", keys: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"}, anchor: true,
		re: lazily(`\A(?:sk|rk)_(?:live|test)_[0-9a-z]{20,}`), edges: true},
	{kind: "google-api-key", keys: []string{"aiza"}, re: lazily(`AIza[0-9A-Za-z_\-]{35}`), edges: true},
	// Vendor prefixes gitleaks' rule set knows and this table lacked
	// (docs/decisions.md#secret-rule-set), written from each vendor's token
	// format: GitLab, npm, Hugging Face, PyPI, age, DigitalOcean, SendGrid,
	// Shopify, Grafana.
	{kind: "gitlab-token", keys: []string{"glpat-", "gldt-", "glrt-", "glptt-"}, re: lazily(
		`gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_\-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?`), edges: true},
	{kind: "npm-token", keys: []string{"npm_"}, re: lazily(`npm_[A-Za-z0-9]{36}`), edges: true, valid: mixed},
	{kind: "huggingface-token", keys: []string{"hf_"}, re: lazily(`hf_[A-Za-z]{34}`), edges: true, valid: bothCases},
	{kind: "pypi-token", keys: []string{"pypi-ageichlwas5vcmc"}, re: lazily(`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}`), edges: true},
	{kind: "age-secret-key", keys: []string{"age-secret-key-1"}, re: lazily(`AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}`), edges: true},
	{kind: "digitalocean-token", keys: []string{"_v1_"}, re: lazily(`do[opr]_v1_[0-9a-f]{64}`), edges: true},
	{kind: "sendgrid-api-key", keys: []string{"sg."}, re: lazily(`SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}`), edges: true},
	{kind: "shopify-token", keys: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, re: lazily(`shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}`), edges: true},
	{kind: "grafana-token", keys: []string{"glsa_"}, re: lazily(`glsa_[A-Za-z0-9]{32}_[0-9a-fA-F]{8}`), edges: true},
	{kind: "anthropic-api-key", keys: []string{"sk-ant-"}, anchor: true, re: lazily(`\Ask-ant-[a-z]{3,8}[0-9]{2}-[a-z0-9_\-]{80,}`), edges: true},
	{kind: "openai-api-key", keys: []string{"sk-"}, anchor: true, re: lazily(`\Ask-(?:(?:proj|svcacct|admin)-)?[a-z0-9_\-]{32,}`), edges: true, valid: mixed},
	{kind: "jwt", keys: []string{"eyj"}, re: lazily(`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}`), edges: true},
	{kind: "url-password", keys: []string{"://"}, re: lazily(`://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[A-Za-z0-9\[]`), group: 1, scheme: true, valid: urlPassword},
	// The names end in one of the keys (client_secret, api_key,
	// auth_token, db_password), so matching from the key finds them all.
	{kind: "password-assignment", keys: []string{"pass", "pwd", "secret", "token", "key"}, anchor: true, left: true, re: lazily(
		`\A(?:pass(?:word|wd|phrase)?|pwd|secret|token|key)["']?[ \t]*(?:[:=]|=>)[ \t]*["']?([^\s"'<>,;()\[\]{}]+)`),
		group: 1, valid: highEntropy},
}

// Redaction is one secret [RedactSecrets] took out of a text.
type Redaction struct {
	// Kind names the rule that found it ("aws-access-key-id").
	Kind string
}

// RedactSecrets replaces every secret-shaped span of s with
// "[redacted: KIND]" and returns the new text and what it replaced, in
// text order. It never reports a secret's value. Text with nothing
// secret-shaped comes back unchanged (the same string). The rules and
// their limits: docs/decisions.md#secret-redaction.
func RedactSecrets(s string) (string, []Redaction) {
	type span struct {
		start, end int
		rule       int
	}
	var spans []span
	lower := asciiLower(s)
	for i, r := range secretRules {
		if !containsAny(lower, r.keys) {
			continue
		}
		var found [][]int
		if r.anchor {
			found = anchoredMatches(r.re(), lower, r.keys)
		} else {
			found = r.re().FindAllStringSubmatchIndex(s, -1)
		}
		for _, m := range found {
			start, end := m[2*r.group], m[2*r.group+1]
			if start < 0 {
				continue
			}
			if r.edges && (tokenByteAt(s, start-1) || tokenByteAt(s, end)) {
				continue
			}
			if r.left && alnumAt(s, m[0]-1) || r.scheme && !alnumAt(s, m[0]-1) {
				continue
			}
			if r.valid != nil && !r.valid(s[start:end]) {
				continue
			}
			spans = append(spans, span{start, end, i})
		}
	}
	if len(spans) == 0 {
		return s, nil
	}
	// Overlapping finds merge into one redaction covering them all, named
	// by the earliest rule among them: no part of either value survives.
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	kept := spans[:1]
	for _, sp := range spans[1:] {
		k := &kept[len(kept)-1]
		if sp.start >= k.end {
			kept = append(kept, sp)
			continue
		}
		k.end = max(k.end, sp.end)
		k.rule = min(k.rule, sp.rule)
	}
	var b strings.Builder
	b.Grow(len(s))
	out := make([]Redaction, 0, len(kept))
	last := 0
	for _, k := range kept {
		b.WriteString(s[last:k.start])
		kind := secretRules[k.rule].kind
		b.WriteString(RedactedMark(kind))
		last = k.end
		out = append(out, Redaction{Kind: kind})
	}
	b.WriteString(s[last:])
	return b.String(), out
}

// RedactedMark is what a redacted secret of kind reads as in the stored
// text.
func RedactedMark(kind string) string { return "[redacted: " + kind + "]" }

// RedactionNote is the line a tool's answer gains when it redacted
// something: how many secrets, and of which kinds (each once, in text
// order), never their values. "" when rs is empty.
func RedactionNote(what string, rs []Redaction) string {
	if len(rs) == 0 {
		return ""
	}
	seen := map[string]int{}
	var kinds []string
	for _, r := range rs {
		if seen[r.Kind] == 0 {
			kinds = append(kinds, r.Kind)
		}
		seen[r.Kind]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k
		if n := seen[k]; n > 1 {
			parts[i] += " x" + strconv.Itoa(n)
		}
	}
	noun := "secrets"
	if len(rs) == 1 {
		noun = "secret"
	}
	return "redacted " + strconv.Itoa(len(rs)) + " " + noun + " from the " + what + " before storing it: " +
		strings.Join(parts, ", ") + " (the stored text reads [redacted: KIND] in their place)"
}

// anchorWindow bounds what an anchored rule reads from each key on: a
// key name, its separator and a value of at most 256 bytes.
const anchorWindow = 512

// anchoredMatches runs re (anchored with \A) at every occurrence of each
// key in lower and returns the submatch offsets in lower.
func anchoredMatches(re *regexp.Regexp, lower string, keys []string) [][]int {
	var out [][]int
	for _, k := range keys {
		for from := 0; ; {
			i := strings.Index(lower[from:], k)
			if i < 0 {
				break
			}
			at := from + i
			m := re.FindStringSubmatchIndex(lower[at:min(len(lower), at+anchorWindow)])
			if m != nil {
				for j := range m {
					if m[j] >= 0 {
						m[j] += at
					}
				}
				out = append(out, m)
				// Matches of one rule that overlap merge anyway: go on
				// after this one, so text made of keys stays linear.
				from = max(at+1, m[1])
				continue
			}
			from = at + 1
		}
	}
	return out
}

// asciiLower is s with ASCII letters in lower case: the same length and
// byte offsets as s, whatever else it holds.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// containsAny reports whether s contains one of keys (true for no keys).
func containsAny(s string, keys []string) bool {
	if len(keys) == 0 {
		return true
	}
	for _, k := range keys {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// alnumAt reports whether s[i] exists and is an ASCII letter or digit.
func alnumAt(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// tokenByteAt reports whether s[i] exists and could continue a token
// (letters, digits, '_', '-', '+', '/'), so a match next to it is part of
// something longer.
func tokenByteAt(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || c == '/'
}

// classes counts the character classes in v: lower case, upper case,
// digits, anything else.
func classes(v string) int {
	var lo, up, dig, other int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z':
			lo = 1
		case c >= 'A' && c <= 'Z':
			up = 1
		case c >= '0' && c <= '9':
			dig = 1
		default:
			other = 1
		}
	}
	return lo + up + dig + other
}

// mixed accepts a key body that mixes letters and digits, as random keys
// do; prose that happens to follow "sk-" ("sk-learn-is-a-library-...")
// does not.
func mixed(v string) bool {
	var letters, digits bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		letters = letters || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digits = digits || c >= '0' && c <= '9'
	}
	return letters && digits
}

// notPlaceholder rejects the values that stand for a password in docs and
// configs ("${DB_PASSWORD}", "<password>", "****", "password").
func notPlaceholder(v string) bool {
	switch {
	case strings.HasPrefix(v, "$"), strings.HasPrefix(v, "%"), strings.HasPrefix(v, "{"), strings.HasPrefix(v, "<"):
		return false
	case strings.Trim(v, "*xX.") == "":
		return false
	}
	switch strings.ToLower(v) {
	case "pass", "password", "passwd", "pwd", "secret", "token", "changeme", "example":
		return false
	}
	return true
}

// upperDigits accepts an AWS key id as AWS spells it: upper-case letters
// and digits only.
func upperDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// urlPassword accepts the password of a URL unless it is a placeholder.
func urlPassword(v string) bool { return len(v) <= 256 && notPlaceholder(v) }

// highEntropy accepts an assigned value that reads as random: not a
// placeholder, not a reference to where the secret lives (an environment
// variable, a path, a URL, a call), at least two character classes and
// at least 3 bits of Shannon entropy per byte. Ordinary words and
// identifiers ("see-the-vault", "get_password") fall below it.
func highEntropy(v string) bool {
	if len(v) < 8 || len(v) > 256 || !notPlaceholder(v) || strings.Contains(v, "://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
		return false
	}
	if strings.HasPrefix(v, "[redacted") || strings.HasPrefix(v, "env.") || strings.HasPrefix(v, "process.env") || strings.HasPrefix(v, "os.") {
		return false
	}
	if classes(v) < 2 || readableValue().MatchString(v) {
		return false
	}
	return entropy(v) >= 3.0
}

// readableValue matches an assigned value that names something rather
// than being a secret: a dotted path (request.headers.get), a constant or
// variable name (YOUR_API_KEY_HERE) and words joined by '-' or '_', each
// perhaps ending in digits (user-profile-cache-v2).
var readableValue = lazily(
	`^(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Za-z]+[0-9]*(?:[-_][A-Za-z]+[0-9]*)+)$`)

// bothCases accepts a key body with upper- and lower-case letters, as
// random letters have; an identifier after the prefix (hf_hub_download...)
// does not.
func bothCases(v string) bool {
	return strings.ToLower(v) != v && strings.ToUpper(v) != v
}

// entropy is the Shannon entropy of v's bytes, in bits per byte.
func entropy(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	h := 0.0
	n := float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
