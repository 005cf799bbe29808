package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReadCacheBytesIsHalfTheHeap: each read connection's page cache is
// the soft heap limit (half the cap), where SQLite stops it anyway.
func TestReadCacheBytesIsHalfTheHeap(t *testing.T) {
	assert.Equal(t, 32<<20, readCacheBytes(64<<20))
	assert.Equal(t, 8<<20, readCacheBytes(16<<20))
	assert.Equal(t, 32<<20, readCacheBytes(0), "no cap: 32 MiB")
}
