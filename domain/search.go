package domain

// SearchQuery is what a text search engine is asked to find.
type SearchQuery struct {
	// Pattern is a regular expression, or a literal when FixedStrings is set.
	Pattern string
	// IgnoreCase matches without regard to letter case.
	IgnoreCase bool
	// FixedStrings treats Pattern as a literal string.
	FixedStrings bool
}

// LineMatch is the first match of a [SearchQuery] in one line.
type LineMatch struct {
	// Index is the 0-based position of the line in the stream searched.
	Index int
	// Text is the whole line as searched.
	Text string
	// Start and End are byte offsets of the first match in Text.
	Start, End int
}
