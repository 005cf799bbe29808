package domain_test

import (
	"fmt"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Limits are the caps every call runs under. Start from the defaults,
// change what the settings say, and validate: the first setting out of
// range is an error naming it.
func ExampleLimits() {
	l := domain.DefaultLimits()
	fmt.Println(l.DefaultLimit, l.MaxRows, l.MaxResultBytes, l.ResumeBytes())

	l.DefaultLimit = 5000
	fmt.Println(l.Validate())
	// Output:
	// 100 1000 32768 65536
	// default_limit cannot exceed max_rows
}

// A cell longer than the cell cap keeps that many code points (never
// splitting a character) and says how many it dropped.
func ExampleFormatCell() {
	text, cut := domain.FormatCell("héllo wörld", 5)
	fmt.Println(text, cut)
	text, cut = domain.FormatCell([]byte("a blob is never cut"), 5)
	fmt.Println(text, cut)
	// Output:
	// héllo...[+6 chars] true
	// <blob 19 bytes> false
}

// A tool's integer arguments are bounded by functions of the limits, so the
// schema a client sees and the check the core makes cannot disagree.
func ExampleArg_Check() {
	l := domain.DefaultLimits()
	l.MaxRows, l.DefaultLimit = 5, 5 // --max-rows 5 --default-limit 5
	lo, hi := domain.ArgQueryLimit.Bounds(l)
	fmt.Println(lo, hi, domain.ArgQueryLimit.Value(l))
	fmt.Println(domain.ArgQueryLimit.Check(l, 6))
	// Output:
	// 1 5 5
	// limit must be between 1 and 5, got 6
}
