package bench_test

import (
	"database/sql"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(name string, n int, f func()) {
	c0, w0 := cpuNow(), time.Now()
	f()
	c, w := cpuNow()-c0, time.Since(w0)
	fmt.Printf("%-20s wall %6.2fs %9.0f ev/s | cpu %6.2fs %9.0f ev/cpu-s\n", name, w.Seconds(), float64(n)/w.Seconds(), c.Seconds(), float64(n)/c.Seconds())
}

func BenchmarkZZCPU2(b *testing.B) {
	const n = 1_000_000
	path, _ := buildChain(b, n)
	plain := openSQL(b, path)
	mm, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=mmap_size(2147483648)")
	require.NoError(b, err)
	scan := func(db *sql.DB) func() {
		return func() {
			rows, _ := db.Query("SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events ORDER BY id")
			var e domain.Event
			for rows.Next() {
				rows.Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash)
			}
			rows.Close()
		}
	}
	raw := func(db *sql.DB) func() {
		return func() {
			rows, _ := db.Query("SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events ORDER BY id")
			var id int64
			var a, b2, c, d, e, f sql.RawBytes
			for rows.Next() {
				rows.Scan(&id, &a, &b2, &c, &d, &e, &f)
			}
			rows.Close()
		}
	}
	for r := 0; r < 2; r++ {
		measure("scan_plain", n, scan(plain))
		measure("scan_mmap", n, scan(mm))
		measure("rawbytes_plain", n, raw(plain))
		measure("count_only", n, func() { var k int; plain.QueryRow("SELECT count(*) FROM memory_events").Scan(&k) })
		measure("sum_length", n, func() { var k int; plain.QueryRow("SELECT sum(length(content)+length(hash)+length(prev_hash)+length(ts)+length(session)+length(kind)) FROM memory_events").Scan(&k) })
	}
}
