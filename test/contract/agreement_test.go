package contract_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/ripgrep"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
)

// corpus mixes scripts, case pairs with unusual folds, Unicode digits,
// spaces, marks and punctuation: the places where regex dialects differ.
var corpus = []string{
	"The quick brown fox jumps over the lazy dog",
	"café naïve résumé Ünïcödé",
	"ДОМ дом Дом",
	"Ελληνικά κείμενα ΣΊΣΥΦΟΣ ς σ",
	"straße STRASSE STRAẞE",
	"K k \u212a Kelvin",
	"ſ s S long s",
	"ǅungla ǆ Ǆ",
	"ﬁle fi İstanbul ı I i",
	"µ μ Μ micro",
	"0123 ٣٤٥ ०१२ ¹²³ Ⅻ ⅻ ①②",
	"a\u00a0b a\u2003b a\u3000b a\tb a\u200bb a\u0085b a\u2028b",
	"e\u0301 a\u0308 क्षि ः \u20dd",
	"Ⓐⓑ \U0001F130 ͅ",
	"a\u200db a\u200cb",
	"snake_case ‿ ⁀ ＿",
	"🙂 👩\u200d💻 🇫🇷 1\ufe0f\u20e3",
	"a-b_c.d,e;f:g!h?i(j)k[l]m{n}o<p>q/r\\s|t^u$v*w+x=y~z`'\"#%&@",
	"line one⏎line two⏎",
	"tab\there\x01\x7f",
	"",
	"   ",
	"日本語のテキスト 中文 한국어",
	"مرحبا بالعالم שלום",
	"x1y22z333 foo_bar-baz.qux",
	"HTTPServer httpServer Http",
}

// patterns are accepted alike by ripgrep 13 and later and by the built-in
// engine; each runs as is and with ignore_case.
var patterns = []string{
	`fox`, `café`, `дом`, `σ`, `ß`, `k`, `s`, `ǆ`, `fi`, `i`, `μ`, `🙂`, `⏎`, ` `,
	`\d+`, `\D+`, `\w+`, `\W+`, `\s+`, `\S+`, `[\d\s]+`, `[^\w\s]+`, `[\W\d]+`, `[^\W\d_]+`,
	`\p{L}+`, `\p{Lu}`, `\p{Ll}+`, `\p{Nd}`, `\p{N}+`, `\pN`, `\PL+`, `\p{P}+`, `\p{S}`, `\p{M}`,
	`\p{Mn}`, `\p{Z}`, `\p{Zs}+`, `\p{Cc}`, `\p{Cf}`, `\p{Letter}+`, `\p{Any}`, `\p{ASCII}+`,
	`[[:alpha:]]+`, `[[:^alpha:]]+`, `[[:word:]]+`, `[[:space:]]`, `[[:punct:]]+`, `[[:upper:]][[:lower:]]+`,
	`[[:xdigit:]]+`, `[a-zà-ÿ]+`, `[α-ω]+`, `[一-龥]+`, `[^ -~]+`, `[\x{1F600}-\x{1F64F}]`, `[\u0400-\u04FF]+`,
	`\b\w`, `\w\b`, `\bs`, `\B\w\B`, `\bcaf`, `é\b`, `\b\d`, `\b`, `\B`, `\b.\b`,
	`^\w+`, `\w+$`, `^$`, `^`, `$`, `^.`, `.$`, `\A.`, `.\z`,
	`.`, `..`, `.{3}`, `(?s).`, `.+`, `.*?o`,
	`\w{2,3}`, `\w{2,3}?`, `\w+?`, `(?U)\w+`, `a*`, `(?:ab)+`, `o{2}`, `x?y`, `(a|ab)(c|bcd)?`,
	`\w+(?:-\w+)+`, `(\w)(\w)?`, `(?:a|b)*c`, `(a+)+b`, `(?:x+y?)*z`,
	`fox|dog`, `dog|fox`, `a|ab`, `ab|a`, `é|e`, `straße|strasse`,
	`(?i)straße`, `(?i)σ`, `(?i)ǅ`, `(?i)k`, `(?i)[a-z]+`, `(?i)\p{Ll}+`, `(?i)[^a-z]+`, `(?i)[[:lower:]]+`,
	`(?i:Ǆ)`, `(?i)ı`, `(?i)İ`, `(?i)µ`, `(?-i)a`, `(?i)ss`, `(?i)ﬁ`, `(?i)\W+`, `(?i)[^k]+`,
	`\.`, `\x41`, `\x{e9}`, `\u00e9`, `\t`, `\x7f`, `\$`, `\^`, `\*`, `\?`, `\\`, `\-`, `\#`, `\&`, `\~`,
	`[\]]`, `[\[]`, `[]a]`, `[a-]`, `[-a]`, `[\^a]`, `[a^]`, `[\d-]`, `[\s\S]`, `[^\n]`,
}

// refusedByBoth are patterns both engines refuse as invalid arguments
// (ripgrep 13 and later alike).
var refusedByBoth = []string{
	`\n?x`, `a|\n`, `[\n]`, `\x{A}`, `(`, `a)`, `[a`, `a{2,1}`, `{`, `a{`, `\Q.\E`, `\1`, `\0`, `\Z`,
	`(?=a)`, `(?!a)`, `(?<=a)b`, `(?<!a)b`, `(?>a)`, `(?P=n)`, `\p{Nope}`, `[^\x00-\x{10FFFF}]`,
	`\P{Any}`, `[\P{Any}a]`, `[\d-z]`, `[a-\d]`, `[a&&b]`, `\x{D800}`,
}

// literals run with fixed_strings, as is and with ignore_case.
var literals = []string{"fox", "café", "ДОМ", "Σ", "ß", "K", "ǅ", "µ", "a.b", `\s`, "(", "⏎", "🙂", " ", "[[:alpha:]]"}

func TestEnginesAgree(t *testing.T) {
	t.Parallel()
	rg := contract.RequireRg(t)
	engines := []ports.TextSearcher{ripgrep.New(rg), regexp2.New()}
	var queries []domain.SearchQuery
	for _, p := range patterns {
		queries = append(queries, domain.SearchQuery{Pattern: p}, domain.SearchQuery{Pattern: p, IgnoreCase: true})
	}
	for _, p := range literals {
		queries = append(queries, domain.SearchQuery{Pattern: p, FixedStrings: true},
			domain.SearchQuery{Pattern: p, FixedStrings: true, IgnoreCase: true})
	}
	for _, q := range queries {
		t.Run(name(q), func(t *testing.T) {
			t.Parallel()
			want, err := contract.Collect(context.Background(), engines[0], q, slices.Values(corpus))
			require.NoError(t, err, "ripgrep accepts the pattern")
			got, err := contract.Collect(context.Background(), engines[1], q, slices.Values(corpus))
			require.NoError(t, err, "regexp2 accepts the pattern")
			assert.Equal(t, want, got, "regexp2 (got) differs from ripgrep (want)")
		})
	}
}

func TestEnginesRefuseAlike(t *testing.T) {
	t.Parallel()
	rg := contract.RequireRg(t)
	engines := []ports.TextSearcher{ripgrep.New(rg), regexp2.New()}
	for _, p := range refusedByBoth {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			var msgs []string
			for _, e := range engines {
				_, err := contract.Collect(context.Background(), e, domain.SearchQuery{Pattern: p}, slices.Values(corpus))
				require.ErrorIs(t, err, domain.ErrInvalidArgument, e.Name())
				msg := err.Error()
				msgs = append(msgs, msg)
				// The advice is ours: never a flag of ripgrep's that
				// the agent cannot pass, always what to do instead.
				for _, foreign := range []string{"PCRE", "pcre", "Consider", "\n"} {
					assert.NotContains(t, msg, foreign, "%s: %s", e.Name(), msg)
				}
				assert.NotRegexp(t, `--[a-z]`, msg, "%s names a flag", e.Name())
				assert.Regexp(t, `(fixed_strings|instead|write|escape|remove|spell|list|use|put|make|⏎|{min,max})`, msg, "%s says what to do", e.Name())
			}
			// Constructs neither engine has get one message from both.
			if msgs[0] == domain.LookaroundError().Error() || msgs[0] == domain.BackreferenceError().Error() {
				assert.Equal(t, msgs[0], msgs[1])
			}
		})
	}
}

// TestEnginesAgreeOnGeneratedPatterns combines atoms, groups and
// quantifiers into patterns (the same ones on every run). Where both
// engines accept a pattern they must give the same matches; the built-in
// engine may refuse what ripgrep accepts, but never accept what it refuses.
func TestEnginesAgreeOnGeneratedPatterns(t *testing.T) {
	t.Parallel()
	rg := contract.RequireRg(t)
	engines := []ports.TextSearcher{ripgrep.New(rg), regexp2.New()}
	atoms := []string{`a`, `é`, `\w`, `\W`, `\d`, `\s`, `\S`, `.`, `\b`, `\B`, `^`, `$`, `[a-z]`, `[^a-z]`,
		`\p{L}`, `\pN`, `[[:alpha:]]`, `σ`, `k`, `s`, `ß`, `(?i)`, `(?-i)`, ` `, `o`, `e`, `⏎`, `\x{e9}`,
		`[\w-]`, `[^\s\d]`, `K`, `ǅ`, `µ`, `Σ`}
	quantifiers := []string{``, ``, `*`, `+`, `?`, `*?`, `+?`, `??`, `{2}`, `{1,3}`, `{0,2}?`}
	rnd := rand.New(rand.NewPCG(1, 2))
	pick := func(list []string) string { return list[rnd.IntN(len(list))] }
	for range 400 {
		var b strings.Builder
		for range 1 + rnd.IntN(4) {
			switch rnd.IntN(6) {
			case 0:
				b.WriteString("(" + pick(atoms) + "|" + pick(atoms) + ")")
			case 1:
				b.WriteString("(?:" + pick(atoms) + pick(atoms) + ")")
			default:
				b.WriteString(pick(atoms))
			}
			b.WriteString(pick(quantifiers))
		}
		q := domain.SearchQuery{Pattern: b.String(), IgnoreCase: rnd.IntN(3) == 0}
		t.Run(name(q), func(t *testing.T) {
			t.Parallel()
			want, wantErr := contract.Collect(context.Background(), engines[0], q, slices.Values(corpus))
			got, gotErr := contract.Collect(context.Background(), engines[1], q, slices.Values(corpus))
			switch {
			case gotErr != nil:
				assert.ErrorIs(t, gotErr, domain.ErrInvalidArgument)
			case wantErr != nil:
				t.Errorf("regexp2 accepts a pattern ripgrep refuses: %v", wantErr)
			default:
				assert.Equal(t, want, got, "regexp2 (got) differs from ripgrep (want)")
			}
		})
	}
}

// TestEnginesAgreeOnContractCases runs every contract case on both engines
// and compares their answers with each other (each engine's own suite
// compares them with the expected answers).
func TestEnginesAgreeOnContractCases(t *testing.T) {
	t.Parallel()
	rg := contract.RequireRg(t)
	engines := []ports.TextSearcher{ripgrep.New(rg), regexp2.New()}
	for _, tc := range contract.SearchCases() {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			want, wantErr := contract.Collect(context.Background(), engines[0], tc.Query, slices.Values(tc.Lines))
			got, gotErr := contract.Collect(context.Background(), engines[1], tc.Query, slices.Values(tc.Lines))
			assert.Equal(t, want, got)
			assert.Equal(t, kind(wantErr), kind(gotErr))
		})
	}
}

// kind returns the domain sentinel an error wraps.
func kind(err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Kind
	}
	return err
}

func name(q domain.SearchQuery) string {
	n := q.Pattern
	if q.FixedStrings {
		n = "fixed " + n
	}
	if q.IgnoreCase {
		n = "ignore-case " + n
	}
	return n
}
