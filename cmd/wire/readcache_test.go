package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReadCacheBytesIsAQuarterOfTheHeap: each read connection's page
// cache is a quarter of SQLite's heap cap, 16 MiB without a cap.
func TestReadCacheBytesIsAQuarterOfTheHeap(t *testing.T) {
	assert.Equal(t, 16<<20, readCacheBytes(64<<20))
	assert.Equal(t, 4<<20, readCacheBytes(16<<20))
	assert.Equal(t, 16<<20, readCacheBytes(0), "no cap: 16 MiB")
}
