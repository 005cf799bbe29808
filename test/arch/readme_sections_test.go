package arch_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// How the repository cites a section of README.md outside a Markdown link
// (in --help, error messages, comments and prose): the heading's words in
// quotes after README (its hashes may come along), README's NAME table (or section, row), or
// an anchor after README or README.md. README.md before a quote is a path
// (cp LICENSE README.md "$dir"), not a citation. readmeCiteJoin joins a comment or a paragraph broken over
// lines, so a citation that wraps is still one.
var (
	readmeCiteQuoted = regexp.MustCompile(`README(?:'s)? \\?"(?:#+ )?([^"\\]+)\\?"`)
	readmeCiteTable  = regexp.MustCompile(`README(?:\.md)?'s ([A-Z][A-Za-z ]*?) (?:table|section|rows?)\b`)
	readmeCiteAnchor = regexp.MustCompile(`README(?:\.md)?#([a-z0-9-]+)`)
	readmeCiteJoin   = regexp.MustCompile(`[ \t]*\r?\n[ \t]*(?://+|#+|\*)?[ \t]*`)
)

// readmeSectionsFile is this file, whose samples are not citations.
const readmeSectionsFile = "test/arch/readme_sections_test.go"

// readmeCitations returns the README sections data cites: headings by
// their words, anchors with a leading "#".
func readmeCitations(data string) []string {
	var out []string
	for _, m := range readmeCiteAnchor.FindAllStringSubmatch(data, -1) {
		out = append(out, "#"+m[1])
	}
	joined := readmeCiteJoin.ReplaceAllString(data, " ")
	for _, re := range []*regexp.Regexp{readmeCiteQuoted, readmeCiteTable} {
		for _, m := range re.FindAllStringSubmatch(joined, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// TestReadmeSectionCitationsExist fails when --help, an error message, a
// comment or a page names a section of README.md that README does not have,
// so a renamed or merged heading cannot leave a reader looking for it.
func TestReadmeSectionCitationsExist(t *testing.T) {
	var readme string
	var cites []string // "path: section"
	repoTextFiles(t, func(rel string, data []byte) {
		if rel == "README.md" {
			readme = string(data)
		}
		if rel == readmeSectionsFile {
			return
		}
		for _, c := range readmeCitations(string(data)) {
			cites = append(cites, rel+": "+c)
		}
	})
	require.NotEmpty(t, readme, "README.md exists")
	headings, anchors := map[string]bool{}, map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(readme, -1) {
		headings[strings.TrimSpace(m[1])] = true
		anchors[headingAnchor(m[1])] = true
	}
	require.True(t, headings["Settings"], "headings are read: %v", headings)
	assert.Greater(t, len(cites), 10, "the repository cites README's sections")
	for _, c := range cites {
		section := c[strings.Index(c, ": ")+2:]
		if a, ok := strings.CutPrefix(section, "#"); ok {
			assert.True(t, anchors[a], "%s: README.md has no heading with the anchor #%s", c, a)
			continue
		}
		assert.True(t, headings[section], "%s: README.md has no heading %q", c, section)
	}
}

// TestReadmeCitationsAreFound keeps the patterns honest: each way the
// repository cites a README section is read, a wrapped one too, and prose
// that only mentions README is not.
func TestReadmeCitationsAreFound(t *testing.T) {
	for text, want := range map[string][]string{
		"Asking a person before destructive SQL (README \"Add it to your agent\"):":                  {"Add it to your agent"},
		"// server's own start pays nothing for replication (README \"Sharing and\n// surviving\").": {"Sharing and surviving"},
		`return usagef("see README \"Limits\"")`:                                                     {"Limits"},
		"// readmeSettings reads the table under README's \"## Settings\" heading.":                  {"Settings"},
		"Add a row to README's Tools table (a test":                                                  {"Tools"},
		"as README's Security section lists it":                                                      {"Security"},
		"(README's Settings\n  table: every flag":                                                    {"Settings"},
		"[install](README.md#install) and README#web-view":                                           {"#install", "#web-view"},
		"each with both executables, LICENSE and README.md. The npm package":                         nil,
		"when README's test command or Tools table drifts":                                           nil,
		`cp LICENSE README.md "$work/stage/$name/"`:                                                  nil,
	} {
		assert.Equal(t, want, readmeCitations(text), "%q", text)
	}
}
