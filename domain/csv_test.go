package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestAppendCSVLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		fields []string
		want   string
	}{
		{"plain fields", []string{"a", "b", "c"}, "a,b,c\n"},
		{"comma is quoted", []string{"a,b", "c"}, "\"a,b\",c\n"},
		{"quote is doubled", []string{`say "hi"`}, `"say ""hi"""` + "\n"},
		{"lone quote", []string{`"`}, `""""` + "\n"},
		{"newline is quoted", []string{"line1\nline2"}, "\"line1\nline2\"\n"},
		{"lone carriage return is quoted", []string{"a\rb"}, "\"a\rb\"\n"},
		{"crlf is quoted", []string{"a\r\nb"}, "\"a\r\nb\"\n"},
		{"leading and trailing spaces not quoted", []string{" a ", "b "}, " a ,b \n"},
		{"hash not quoted", []string{"#x", "y#"}, "#x,y#\n"},
		{"tab not quoted", []string{"a\tb"}, "a\tb\n"},
		{"lone space not quoted", []string{" "}, " \n"},
		{"single empty field", []string{""}, "\"\"\n"},
		{"zero fields", []string{}, "\n"},
		{"nil fields", nil, "\n"},
		{"two empty fields are text, quoted", []string{"", ""}, "\"\",\"\"\n"},
		{"empty then value", []string{"", "x"}, "\"\",x\n"},
		{"multi-byte kept", []string{"日本", "😀"}, "日本,😀\n"},
		{"every trigger at once", []string{"a,\"b\"\r\nc"}, "\"a,\"\"b\"\"\r\nc\"\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, string(domain.AppendCSVLine(nil, tc.fields)))
		})
	}
}

func TestAppendCSVLineQuotesOnlyTriggerBytesAtAnyPosition(t *testing.T) {
	t.Parallel()
	// Every byte value at every offset of a field longer than one 8-byte
	// word: exactly ',', '"', '\n' and '\r' cause quoting.
	for b := range 256 {
		trigger := b == ',' || b == '"' || b == '\n' || b == '\r'
		for pos := range 19 {
			field := []byte(strings.Repeat("a", 19))
			field[pos] = byte(b)
			got := string(domain.AppendCSVLine(nil, []string{string(field)}))
			assert.Equal(t, trigger, strings.HasPrefix(got, `"`), "byte %#x at %d", b, pos)
		}
	}
}

func TestAppendCSVLineAppendsToDst(t *testing.T) {
	t.Parallel()
	got := domain.AppendCSVLine([]byte("head\n"), []string{"x", "y"})
	assert.Equal(t, "head\nx,y\n", string(got))
}

// rowsOf returns n single-column rows holding v.
func rowsOf(n int, v any) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{v}
	}
	return rows
}

type tableResult struct {
	Body      string
	Rows      int
	Truncated bool
	CellsCut  int
	Len       int
}

func resultOf(w *domain.TableWriter) tableResult {
	return tableResult{
		Body:      w.Body(),
		Rows:      w.Rows(),
		Truncated: w.TruncatedByBytes(),
		CellsCut:  w.CellsCut(),
		Len:       w.Len(),
	}
}

func TestRenderTable(t *testing.T) {
	t.Parallel()
	fifty := strings.Repeat("v", 50)
	line := fifty + "\n"
	cases := []struct {
		name         string
		columns      []string
		rows         [][]any
		maxBytes     int
		maxCellChars int
		want         tableResult
	}{
		{
			name: "spec check: cap 120 keeps 2 rows", columns: []string{"a"},
			rows: rowsOf(10, fifty), maxBytes: 120, maxCellChars: 2000,
			want: tableResult{Body: "a\n" + line + line, Rows: 2, Truncated: true, Len: 104},
		},
		{
			name: "spec check: cap 5 keeps the first row", columns: []string{"a"},
			rows: rowsOf(10, fifty), maxBytes: 5, maxCellChars: 2000,
			want: tableResult{Body: "a\n" + line, Rows: 1, Truncated: true, Len: 53},
		},
		{
			name: "a line that fits exactly is kept", columns: []string{"a"},
			rows: rowsOf(3, "xy"), maxBytes: 8, maxCellChars: 10,
			want: tableResult{Body: "a\nxy\nxy\n", Rows: 2, Truncated: true, Len: 8},
		},
		{
			name: "everything fits", columns: []string{"a"},
			rows: rowsOf(2, "xy"), maxBytes: 8, maxCellChars: 10,
			want: tableResult{Body: "a\nxy\nxy\n", Rows: 2, Len: 8},
		},
		{
			name: "no rows is the header only", columns: []string{"id", "name"},
			maxBytes: 100, maxCellChars: 10,
			want: tableResult{Body: "id,name\n", Len: 8},
		},
		{
			name: "header alone over the cap still takes the first row", columns: []string{"a long header"},
			rows: rowsOf(2, "x"), maxBytes: 3, maxCellChars: 10,
			want: tableResult{Body: "a long header\nx\n", Rows: 1, Truncated: true, Len: 16},
		},
		{
			name: "header is quoted but never cut", columns: []string{"a,b", strings.Repeat("h", 8)},
			rows: [][]any{{int64(1), "x"}}, maxBytes: 100, maxCellChars: 2,
			want: tableResult{Body: "\"a,b\",hhhhhhhh\n1,x\n", Rows: 1, Len: 19},
		},
		{
			name: "single-column null is an empty line, empty text is quoted", columns: []string{"n"},
			rows: [][]any{{nil}, {""}, {int64(0)}}, maxBytes: 100, maxCellChars: 10,
			want: tableResult{Body: "n\n\n\"\"\n0\n", Rows: 3, Len: 8},
		},
		{
			name: "null then empty text", columns: []string{"a", "b"},
			rows: [][]any{{nil, ""}, {"", nil}, {nil, nil}}, maxBytes: 100, maxCellChars: 10,
			want: tableResult{Body: "a,b\n,\"\"\n\"\",\n,\n", Rows: 3, Len: 14},
		},
		{
			name: "mixed types", columns: []string{"i", "f", "t", "b", "n"},
			rows:     [][]any{{int64(-3), 1e16, "x y", []byte("abcd"), nil}},
			maxBytes: 100, maxCellChars: 10,
			want: tableResult{Body: "i,f,t,b,n\n-3,1e+16,x y,<blob 4 bytes>,\n", Rows: 1, Len: 39},
		},
		{
			name: "cut cells are counted", columns: []string{"a", "b"},
			rows:     [][]any{{"abcdef", "ab"}, {"abc", "abcd"}},
			maxBytes: 100, maxCellChars: 3,
			want: tableResult{
				Body: "a,b\nabc...[+3 chars],ab\nabc,abc...[+1 chars]\n",
				Rows: 2, CellsCut: 2, Len: 45,
			},
		},
		{
			name: "cut cells of the refused row are not counted", columns: []string{"a"},
			rows:     [][]any{{"abcdef"}, {"abcdef"}, {"abcdef"}},
			maxBytes: 20, maxCellChars: 3,
			want: tableResult{Body: "a\nabc...[+3 chars]\n", Rows: 1, Truncated: true, CellsCut: 1, Len: 19},
		},
		{
			name: "a cut cell is quoted on its kept text", columns: []string{"a"},
			rows: [][]any{{`a"b,cdef`}}, maxBytes: 100, maxCellChars: 4,
			want: tableResult{Body: "a\n\"a\"\"b,...[+4 chars]\"\n", Rows: 1, CellsCut: 1, Len: 23},
		},
		{
			name: "a quote trigger in the cut-off part does not quote", columns: []string{"a"},
			rows: [][]any{{"abc,d"}}, maxBytes: 100, maxCellChars: 3,
			want: tableResult{Body: "a\nabc...[+2 chars]\n", Rows: 1, CellsCut: 1, Len: 19},
		},
		{
			name: "multi-line cells stay inside quotes", columns: []string{"a", "b"},
			rows: [][]any{{"l1\nl2", "r\r"}}, maxBytes: 100, maxCellChars: 10,
			want: tableResult{Body: "a,b\n\"l1\nl2\",\"r\r\"\n", Rows: 1, Len: 17},
		},
		{
			name: "bytes are counted as UTF-8", columns: []string{"a"},
			rows: rowsOf(3, "日本"), maxBytes: 16, maxCellChars: 10,
			want: tableResult{Body: "a\n日本\n日本\n", Rows: 2, Truncated: true, Len: 16},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := domain.RenderTable(tc.columns, tc.rows, tc.maxBytes, tc.maxCellChars)
			assert.Equal(t, tc.want, resultOf(w))
		})
	}
}

func TestTableWriterMatchesFormatCellAndAppendCSVLine(t *testing.T) {
	t.Parallel()
	values := []any{
		nil, "", " ", "plain", "a,b", `q"q`, "n\nl", "c\rr", "#x", "t\tt",
		strings.Repeat("é", 9), strings.Repeat("😀,", 5), "\xffbad\xfe", `"""`,
		int64(9), int64(-1), 0.1, 1e-7, []byte("zz"), true, label("l,x"),
	}
	for _, a := range values {
		for _, b := range values {
			for _, row := range [][]any{{a}, {a, b}} {
				// NULL is an empty cell; every other value is its
				// FormatCell text written as a text field.
				cells := make([]string, len(row))
				for i, v := range row {
					if v == nil {
						continue
					}
					text, _ := domain.FormatCell(v, 6)
					cells[i] = strings.TrimSuffix(string(domain.AppendCSVLine(nil, []string{text})), "\n")
				}
				want := "h\n" + strings.Join(cells, ",") + "\n"
				w := domain.NewTableWriter([]string{"h"}, 1000, 6)
				require.True(t, w.Add(row))
				assert.Equal(t, want, w.Body(), "row %q", row)
			}
		}
	}
}

// TestNullAndEmptyTextNeverLookAlike is the rule of every CSV answer: NULL
// is an empty cell, text that is empty (in any Go type the adapters hand
// over) is "", wherever it stands in the row.
func TestNullAndEmptyTextNeverLookAlike(t *testing.T) {
	t.Parallel()
	empties := map[string]any{
		"string":         "",
		"long text":      domain.LongText{},
		"other stringer": label(""),
	}
	for name, empty := range empties {
		for _, width := range []int{1, 2, 3} {
			for pos := range width {
				nullRow := make([]any, width)
				emptyRow := make([]any, width)
				for i := range width {
					nullRow[i], emptyRow[i] = int64(i), int64(i)
				}
				nullRow[pos], emptyRow[pos] = nil, empty
				n, _ := domain.AppendCSVRow(nil, nullRow, 10)
				e, _ := domain.AppendCSVRow(nil, emptyRow, 10)
				assert.NotEqual(t, string(n), string(e), "%s, width %d, position %d", name, width, pos)
				assert.Contains(t, string(e), `""`, "%s, width %d, position %d", name, width, pos)
				assert.NotContains(t, string(n), `"`, "%s, width %d, position %d", name, width, pos)
			}
		}
	}
	// A text cut to nothing is not empty text: it carries its cut mark.
	cut, cells := domain.AppendCSVRow(nil, []any{"abc"}, 0)
	assert.Equal(t, "...[+3 chars]\n", string(cut))
	assert.Equal(t, 1, cells)
}

func TestTableWriterAddAfterRefusal(t *testing.T) {
	t.Parallel()
	w := domain.NewTableWriter([]string{"a"}, 6, 100)
	assert.Equal(t, "a\n", w.Body(), "header is written at once")
	assert.Equal(t, 2, w.Len())
	assert.True(t, w.Add([]any{"first row over the cap"}), "first row always accepted")
	assert.False(t, w.Add([]any{"x"}), "refused once the cap is passed")
	assert.False(t, w.Add([]any{""}), "stays refused even for a row that would fit")
	assert.Equal(t, tableResult{
		Body: "a\nfirst row over the cap\n", Rows: 1, Truncated: true, Len: 25,
	}, resultOf(w))
}

func TestTableWriterAddDoesNotAllocate(t *testing.T) {
	w := domain.NewTableWriter([]string{"id", "score", "title", "body", "note", "n"}, 1<<30, 10)
	row := []any{int64(123456), 3.25, "a title, quoted", `say "x"`, "a cell long enough to be cut", nil}
	for range 2000 {
		w.Add(row)
	}
	allocs := testing.AllocsPerRun(1000, func() { w.Add(row) })
	assert.Zero(t, allocs)
}
