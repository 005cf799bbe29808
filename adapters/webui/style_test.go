package webui

import (
	"io/fs"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// themeVars reads the colour variables of the style sheet's light :root
// and of its prefers-color-scheme: dark :root.
func themeVars(t *testing.T) (light, dark map[string]string) {
	t.Helper()
	b, err := fs.ReadFile(assets, "assets/style.css")
	require.NoError(t, err)
	css := string(b)
	i := strings.Index(css, "@media (prefers-color-scheme: dark)")
	require.Positive(t, i, "the style sheet follows prefers-color-scheme")
	vars := func(s string) map[string]string {
		m := map[string]string{}
		for _, v := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9a-fA-F]{6})`).FindAllStringSubmatch(s, -1) {
			m[v[1]] = v[2]
		}
		return m
	}
	root := regexp.MustCompile(`:root\s*\{[^}]*\}`)
	light = vars(root.FindString(css[:i]))
	dark = vars(root.FindString(css[i:]))
	return light, dark
}

// luminance is a #rrggbb colour's relative luminance (WCAG 2).
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	n, err := strconv.ParseUint(hex[1:], 16, 32)
	require.NoError(t, err)
	l := 0.0
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		c := float64(n>>(16-8*i)&0xff) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += w * c
	}
	return l
}

// Every text colour of the style sheet reaches 4.5:1 against each
// background it is drawn on, in the light theme and in the dark one.
func TestThemesContrast(t *testing.T) {
	light, dark := themeVars(t)
	pairs := [][2]string{
		{"fg", "bg"}, {"muted", "bg"}, {"accent", "bg"}, {"ok", "bg"}, {"err", "bg"},
		{"err", "err-bg"}, {"fg", "err-bg"}, {"fg", "accent-bg"}, {"fg", "code"}, {"accent", "code"},
	}
	for name, theme := range map[string]map[string]string{"light": light, "dark": dark} {
		for _, p := range pairs {
			fg, bg := theme[p[0]], theme[p[1]]
			require.NotEmpty(t, fg, "%s theme: --%s", name, p[0])
			require.NotEmpty(t, bg, "%s theme: --%s", name, p[1])
			a, b := luminance(t, fg), luminance(t, bg)
			ratio := (max(a, b) + 0.05) / (min(a, b) + 0.05)
			assert.GreaterOrEqual(t, ratio, 4.5, "%s theme: --%s on --%s is %.2f:1", name, p[0], p[1], ratio)
		}
	}
}
