package domain_test

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// redactCase is one line of testdata/secrets.txt.
type redactCase struct {
	line  int
	kinds []string
	text  string
}

func loadRedactCorpus(t *testing.T) []redactCase {
	t.Helper()
	f, err := os.Open("testdata/secrets.txt")
	require.NoError(t, err)
	defer f.Close()
	var cases []redactCase
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kinds, text, ok := strings.Cut(line, " | ")
		require.True(t, ok, "line %d: want KINDS | TEXT", n)
		c := redactCase{line: n, text: strings.ReplaceAll(text, `\n`, "\n")}
		if kinds != "-" {
			c.kinds = strings.Split(kinds, ",")
		}
		cases = append(cases, c)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, cases)
	return cases
}

func kindsOf(rs []domain.Redaction) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Kind)
	}
	return out
}

// TestRedactSecretsCorpus runs every real-format key and every look-alike
// of the corpus: each key is found with its kind and leaves no trace of
// its value; each look-alike comes back unchanged.
func TestRedactSecretsCorpus(t *testing.T) {
	for _, c := range loadRedactCorpus(t) {
		got, rs := domain.RedactSecrets(c.text)
		assert.Equal(t, c.kinds, kindsOf(rs), "line %d: %q -> %q", c.line, c.text, got)
		if c.kinds == nil {
			assert.Equal(t, c.text, got, "line %d", c.line)
			continue
		}
		for _, k := range c.kinds {
			assert.Contains(t, got, domain.RedactedMark(k), "line %d", c.line)
		}
		// Redacting again finds nothing: the marks are not secrets.
		again, more := domain.RedactSecrets(got)
		assert.Equal(t, got, again, "line %d", c.line)
		assert.Empty(t, more, "line %d", c.line)
	}
}

// TestRedactSecretsKeepsTheRest checks what is around a secret survives,
// byte for byte, and the value itself is gone.
func TestRedactSecretsKeepsTheRest(t *testing.T) {
	const key = "AKIAIOSFODNN7EXAMPLE"
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	in := "before: aws_access_key_id=" + key + "\naws_secret_access_key: " + secret + "\nafter: the deploy worked"
	got, rs := domain.RedactSecrets(in)
	assert.Equal(t, "before: aws_access_key_id=[redacted: aws-access-key-id]\naws_secret_access_key: [redacted: aws-secret-access-key]\nafter: the deploy worked", got)
	assert.Equal(t, []domain.Redaction{{Kind: "aws-access-key-id"}, {Kind: "aws-secret-access-key"}}, rs)
	assert.NotContains(t, got, key)
	assert.NotContains(t, got, secret)

	url, _ := domain.RedactSecrets("postgres://app:s3cr3t-Pa55@db:5432/app")
	assert.Equal(t, "postgres://app:[redacted: url-password]@db:5432/app", url)
}

// TestRedactSecretsGenerated builds random keys of every documented shape
// (a fixed seed, so a failure repeats) and checks each is found, alone and
// inside a sentence, and that a random string of the same alphabet
// without the vendor's prefix is not.
func TestRedactSecretsGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 4))
	const upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	const b64 = alnum + "+/"
	const urlsafe = alnum + "_-"
	rnd := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	shapes := []struct {
		kind string
		make func() string
	}{
		{"aws-access-key-id", func() string { return "AKIA" + rnd(upperDigits, 16) }},
		{"aws-access-key-id", func() string { return "ASIA" + rnd(upperDigits, 16) }},
		{"github-token", func() string { return "ghp_" + rnd(alnum, 36) }},
		{"github-token", func() string { return "ghs_" + rnd(alnum, 36) }},
		{"github-token", func() string { return "github_pat_" + rnd(alnum, 22) + "_" + rnd(alnum, 59) }},
		{"slack-token", func() string {
			return "xoxb-" + rnd("0123456789", 12) + "-" + rnd("0123456789", 13) + "-" + rnd(alnum, 24)
		}},
		{"stripe-secret-key", func() string { return "sk_live_" + rnd(alnum, 24) }},
		{"stripe-secret-key", func() string { return "rk_live_" + rnd(alnum, 99) }},
		{"google-api-key", func() string { return "AIza" + rnd(urlsafe, 35) }},
		{"openai-api-key", func() string { return "sk-proj-" + rnd(alnum, 20) + "0a" + rnd(urlsafe, 100) }},
		{"anthropic-api-key", func() string { return "sk-ant-api03-" + rnd(urlsafe, 93) + "AA" }},
		{"jwt", func() string { return "eyJ" + rnd(urlsafe, 30) + ".eyJ" + rnd(urlsafe, 60) + "." + rnd(urlsafe, 43) }},
		{"gitlab-token", func() string { return "glpat-" + rnd(urlsafe, 20) }},
		{"npm-token", func() string { return "npm_" + rnd(alnum, 34) + "7a" }},
		{"huggingface-token", func() string { return "hf_" + rnd(alnum[:52], 32) + "aZ" }},
		{"age-secret-key", func() string { return "AGE-SECRET-KEY-1" + rnd("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58) }},
		{"digitalocean-token", func() string { return "dop_v1_" + rnd("0123456789abcdef", 64) }},
		{"sendgrid-api-key", func() string { return "SG." + rnd(urlsafe, 22) + "." + rnd(urlsafe, 43) }},
		{"shopify-token", func() string { return "shpat_" + rnd("0123456789abcdef", 32) }},
		{"grafana-token", func() string { return "glsa_" + rnd(alnum, 32) + "_" + rnd("0123456789abcdef", 8) }},
	}
	for _, s := range shapes {
		for i := 0; i < 50; i++ {
			key := s.make()
			for _, text := range []string{key, "the key is " + key + ", keep it safe", "KEY=\"" + key + "\"\n"} {
				got, rs := domain.RedactSecrets(text)
				assert.Equal(t, []string{s.kind}, kindsOf(rs), "%q", text)
				assert.NotContains(t, got, key)
			}
		}
	}
	// The same alphabets with no vendor prefix, in prose: random ids,
	// hashes and base64 are everywhere in an agent's notes.
	for i := 0; i < 500; i++ {
		for _, text := range []string{
			"id " + rnd(upperDigits, 20) + " done",
			"blob " + rnd(b64, 40) + " stored",
			"hash " + rnd("0123456789abcdef", 64),
			"ref " + rnd(urlsafe, 39),
		} {
			got, rs := domain.RedactSecrets(text)
			if !assert.Empty(t, rs, "%q", text) {
				continue
			}
			assert.Equal(t, text, got)
		}
	}
}

// TestRedactionNote checks the answer's line names kinds and counts,
// never values.
func TestRedactionNote(t *testing.T) {
	assert.Equal(t, "", domain.RedactionNote("content", nil))
	note := domain.RedactionNote("content", []domain.Redaction{{Kind: "jwt"}, {Kind: "github-token"}, {Kind: "jwt"}})
	assert.True(t, strings.HasPrefix(note, "redacted 3 secrets from the content before storing it: jwt x2, github-token ("), note)
}

// FuzzRedactSecrets checks that redaction never panics, changes nothing
// when it reports nothing, and writes a mark for every redaction it
// reports.
func FuzzRedactSecrets(f *testing.F) {
	f.Add("password=Tr0ub4dor&3x AKIAIOSFODNN7EXAMPLE")
	f.Add("-----BEGIN PRIVATE KEY-----\nabc")
	f.Add("postgres://a:b@c")
	f.Add("pAssword=1207809AB!ABIA0000000000000000")
	f.Fuzz(func(t *testing.T, s string) {
		got, rs := domain.RedactSecrets(s)
		if len(rs) == 0 && got != s {
			t.Fatalf("changed without a redaction: %q -> %q", s, got)
		}
		for _, r := range rs {
			if !strings.Contains(got, domain.RedactedMark(r.Kind)) {
				t.Fatalf("%s reported but not marked: %q -> %q", r.Kind, s, got)
			}
		}
		if strings.Count(got, "[redacted: ") < len(rs) {
			t.Fatalf("fewer marks than redactions: %q -> %q", s, got)
		}
	})
}

// The rules are compiled at their first use, not when the package loads
// (docs/decisions.md#start-up): each still compiles, and only once per
// process.
func TestSecretPatternsCompileOnce(t *testing.T) {
	kinds, first := domain.SecretPatterns()
	_, again := domain.SecretPatterns()
	require.Len(t, again, len(first))
	for i, re := range first {
		require.NotNil(t, re, kinds[i])
		assert.Same(t, re, again[i], kinds[i])
	}
}
