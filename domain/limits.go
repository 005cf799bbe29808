package domain

import (
	"fmt"
	"strconv"
	"time"
)

// Limits are the caps every tool call runs under. The zero value is not
// usable; start from [DefaultLimits] and call [Limits.Validate].
type Limits struct {
	// QueryTimeout is the deadline of one tool call's SQL.
	QueryTimeout time.Duration
	// DefaultLimit is the row limit when the caller passes none.
	DefaultLimit int
	// MaxRows is the largest row limit a caller may ask for.
	MaxRows int
	// MaxResultBytes caps the CSV body of one result.
	MaxResultBytes int
	// MaxCellChars caps one cell, in Unicode code points.
	MaxCellChars int
	// MaxUpdateRows is the write_query UPDATE guard.
	MaxUpdateRows int
	// SearchCandidates caps the rows search_text scans.
	SearchCandidates int
	// Snapshots is how many snapshots to keep; 0 turns them off.
	Snapshots int
	// MaxRequestBytes caps one inbound JSON-RPC message. A larger one is
	// refused unread: decoding a message costs many times its size.
	MaxRequestBytes int
	// MaxConcurrentCalls caps the tool calls that run at once; the others
	// wait for a slot, their deadline counting from arrival.
	MaxConcurrentCalls int
	// MaxConcurrentSearches caps the search_text calls that run at once:
	// a search holds whole values in Go memory, outside SQLite's heap.
	MaxConcurrentSearches int
	// MaxSearchValueBytes is how much of each value search_text searches:
	// a longer one is searched in its head only, and the result says so.
	MaxSearchValueBytes int
	// MaxSQLiteHeapBytes caps SQLite's process-wide heap: every value of a
	// row, every sort and page cache of every call in flight, together.
	MaxSQLiteHeapBytes int
}

// DefaultLimits returns the reference server's defaults.
func DefaultLimits() Limits {
	return Limits{
		QueryTimeout:     10 * time.Second,
		DefaultLimit:     100,
		MaxRows:          1000,
		MaxResultBytes:   32768,
		MaxCellChars:     2000,
		MaxUpdateRows:    500,
		SearchCandidates: 5000,
		Snapshots:        5,
		MaxRequestBytes:  1 << 20,
		// Measured in test/e2e/limits_memory_test.go (docs/decisions.md#call-slots).
		MaxConcurrentCalls:    8,
		MaxConcurrentSearches: 1,
		MaxSearchValueBytes:   512 << 10,
		MaxSQLiteHeapBytes:    64 << 20,
	}
}

// Validate reports the first setting that is out of range, naming it the way
// the reference does (query_timeout, default_limit, ...).
func (l Limits) Validate() error {
	if l.QueryTimeout <= 0 {
		return Errorf(ErrInvalidArgument, "query_timeout must be positive, got %s", FormatSeconds(l.QueryTimeout))
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"default_limit", l.DefaultLimit},
		{"max_rows", l.MaxRows},
		{"max_result_bytes", l.MaxResultBytes},
		{"max_cell_chars", l.MaxCellChars},
		{"max_update_rows", l.MaxUpdateRows},
		{"search_candidates", l.SearchCandidates},
		{"max_request_bytes", l.MaxRequestBytes},
		{"max_concurrent_calls", l.MaxConcurrentCalls},
		{"max_concurrent_searches", l.MaxConcurrentSearches},
		{"max_search_value_bytes", l.MaxSearchValueBytes},
		{"max_sqlite_heap_bytes", l.MaxSQLiteHeapBytes},
	} {
		if f.v <= 0 {
			return Errorf(ErrInvalidArgument, "%s must be positive, got %d", f.name, f.v)
		}
	}
	if l.Snapshots < 0 {
		return Errorf(ErrInvalidArgument, "snapshots cannot be negative")
	}
	if l.DefaultLimit > l.MaxRows {
		return Errorf(ErrInvalidArgument, "default_limit cannot exceed max_rows")
	}
	return nil
}

// FormatSeconds spells a duration in seconds the way Python's %g does:
// 10s is "10", 2.5s is "2.5", 500ms is "0.5".
func FormatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'g', 6, 64)
}

// ResumeBytes caps get_resume_context's answer: twice a result's cap, since
// it holds a checkpoint's summary and the events after it.
func (l Limits) ResumeBytes() int { return 2 * l.MaxResultBytes }

// String describes the limits for the startup log.
func (l Limits) String() string {
	return fmt.Sprintf("timeout=%ss default_limit=%d max_rows=%d max_result_bytes=%d max_cell_chars=%d max_update_rows=%d search_candidates=%d snapshots=%d max_request_bytes=%d max_concurrent_calls=%d max_concurrent_searches=%d max_search_value_bytes=%d max_sqlite_heap_bytes=%d",
		FormatSeconds(l.QueryTimeout), l.DefaultLimit, l.MaxRows, l.MaxResultBytes, l.MaxCellChars, l.MaxUpdateRows, l.SearchCandidates, l.Snapshots, l.MaxRequestBytes,
		l.MaxConcurrentCalls, l.MaxConcurrentSearches, l.MaxSearchValueBytes, l.MaxSQLiteHeapBytes)
}
