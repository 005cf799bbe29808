package domain_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestFormatFloat(t *testing.T) {
	t.Parallel()
	// Every want below is what CPython's repr(float) prints.
	cases := []struct {
		name string
		in   float64
		want string
	}{
		{"integral two", 2, "2.0"},
		{"one and a half", 1.5, "1.5"},
		{"zero", 0, "0.0"},
		{"negative zero", math.Copysign(0, -1), "-0.0"},
		{"one tenth", 0.1, "0.1"},
		{"hundred", 100, "100.0"},
		{"negative integral", -42, "-42.0"},
		{"largest positional 1e15", 1e15, "1000000000000000.0"},
		{"largest positional 9999999999999998", 9999999999999998, "9999999999999998.0"},
		{"exponent 16 switches to e", 1e16, "1e+16"},
		{"1e22", 1e22, "1e+22"},
		{"17 significant digits", 123456789012345680.0, "1.2345678901234568e+17"},
		{"big with mantissa", 1.2345678901234567e+19, "1.2345678901234567e+19"},
		{"exponent -4 stays positional", 0.0001, "0.0001"},
		{"1e-4 literal is positional", 1e-4, "0.0001"},
		{"exponent -5 switches to e", 0.00001, "1e-05"},
		{"1e-07", 1e-7, "1e-07"},
		{"small with mantissa", 1.5e-7, "1.5e-07"},
		{"positional small with digits", 0.00012345, "0.00012345"},
		{"one third", 1.0 / 3, "0.3333333333333333"},
		{"two thirds", 2.0 / 3, "0.6666666666666666"},
		{"sum of 0.1 and 0.2 at run time", 0.30000000000000004, "0.30000000000000004"},
		{"pi", math.Pi, "3.141592653589793"},
		{"positional with fraction", 12345.678, "12345.678"},
		{"negative fraction", -0.5, "-0.5"},
		{"smallest subnormal", 5e-324, "5e-324"},
		{"largest finite", math.MaxFloat64, "1.7976931348623157e+308"},
		{"negative largest", -math.MaxFloat64, "-1.7976931348623157e+308"},
		{"smallest normal", 2.2250738585072014e-308, "2.2250738585072014e-308"},
		{"three-digit negative exponent", 1e-100, "1e-100"},
		{"three-digit positive exponent", 1e100, "1e+100"},
		{"2 to the 53", 9007199254740992, "9007199254740992.0"},
		{"just below 2 to the 53", 9007199254740991, "9007199254740991.0"},
		{"negative 2 to the 53", -9007199254740992, "-9007199254740992.0"},
		{"just above 2 to the 53", 9007199254740994, "9007199254740994.0"},
		{"integral in the spaced range", 1234567890123456, "1234567890123456.0"},
		{"negative integral 1e15", -1e15, "-1000000000000000.0"},
		{"positive infinity", math.Inf(1), "inf"},
		{"negative infinity", math.Inf(-1), "-inf"},
		{"not a number", math.NaN(), "nan"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, domain.FormatFloat(tc.in))
		})
	}
}

func TestFormatFloatRoundTripsAndKeepsPythonShape(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := domain.FormatFloat(f)
		back, err := strconv.ParseFloat(s, 64)
		if !assert.NoError(t, err, s) {
			continue
		}
		assert.Equal(t, math.Float64bits(f), math.Float64bits(back), "round trip of %s", s)
		// Python always shows either an exponent or a decimal point.
		assert.True(t, strings.ContainsAny(s, ".e"), "shape of %s", s)
	}
}

type label string

func TestFormatCell(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		in       any
		maxChars int
		want     string
		wantCut  bool
	}{
		{"nil is empty", nil, 10, "", false},
		{"int64", int64(42), 10, "42", false},
		{"negative int64", int64(-7), 10, "-7", false},
		{"min int64", int64(math.MinInt64), 3, "-9223372036854775808", false},
		{"int", 12, 10, "12", false},
		{"uint64 max", uint64(math.MaxUint64), 3, "18446744073709551615", false},
		{"true is 1", true, 10, "1", false},
		{"false is 0", false, 10, "0", false},
		{"float64", 2.0, 10, "2.0", false},
		{"float64 not cut", 0.3333333333333333, 3, "0.3333333333333333", false},
		{"float32 widened", float32(1.5), 10, "1.5", false},
		{"text as is", "hello, world", 20, "hello, world", false},
		{"empty text", "", 10, "", false},
		{"blob", []byte{1, 2, 3}, 10, "<blob 3 bytes>", false},
		{"empty blob", []byte{}, 10, "<blob 0 bytes>", false},
		{"blob never cut", make([]byte, 5000), 3, "<blob 5000 bytes>", false},
		{"spec example 12 x with max 10", strings.Repeat("x", 12), 10, "xxxxxxxxxx...[+2 chars]", true},
		{"exactly max chars not cut", strings.Repeat("x", 10), 10, "xxxxxxxxxx", false},
		{"one over max", strings.Repeat("x", 11), 10, "xxxxxxxxxx...[+1 chars]", true},
		{"two-byte chars counted once", strings.Repeat("é", 10), 10, strings.Repeat("é", 10), false},
		{"two-byte chars cut", strings.Repeat("é", 12), 10, strings.Repeat("é", 10) + "...[+2 chars]", true},
		{"three-byte chars cut", "日本語のテキスト", 3, "日本語...[+5 chars]", true},
		{"emoji counted once", "😀😀😀", 3, "😀😀😀", false},
		{"emoji cut", "😀😀😀😀", 2, "😀😀...[+2 chars]", true},
		{"mixed widths", "aé日😀b", 4, "aé日😀...[+1 chars]", true},
		{"invalid bytes count one each", "\xff\xfeab", 2, "\xff\xfe...[+2 chars]", true},
		{"invalid bytes kept", "a\xffb", 3, "a\xffb", false},
		{"truncated sequence counts per byte", "\xe6\x97x", 2, "\xe6\x97...[+1 chars]", true},
		{"zero max cuts everything", "abc", 0, "...[+3 chars]", true},
		{"zero max keeps empty", "", 0, "", false},
		{"negative max counts as zero", "ab", -5, "...[+2 chars]", true},
		{"other types spelled by fmt", label("tag"), 10, "tag", false},
		{"other types cut too", label("abcdef"), 2, "ab...[+4 chars]", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, cut := domain.FormatCell(tc.in, tc.maxChars)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantCut, cut)
		})
	}
}

func TestFormatCellShortTextDoesNotAllocate(t *testing.T) {
	var v any = "a short ascii value"
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = domain.FormatCell(v, 2000)
	})
	assert.Zero(t, allocs)
}
