package attack_test

import (
	"testing"
	"time"
)

func TestTimingTmp(t *testing.T) {
	env := fresh(t)
	in := newInspector(t, env)
	start := time.Now()
	for i := 0; i < 10; i++ {
		in.snapshot(t)
	}
	t.Logf("snapshot %v", time.Since(start)/10)
	start = time.Now()
	for i := 0; i < 10; i++ {
		in.db.QueryRow(headerQuery)
	}
	t.Logf("header %v", time.Since(start)/10)
	start = time.Now()
	for i := 0; i < 10; i++ {
		connState(t, env.Store)
	}
	t.Logf("connState %v", time.Since(start)/10)
	start = time.Now()
	for i := 0; i < 10; i++ {
		fresh(t)
	}
	t.Logf("fresh %v", time.Since(start)/10)
	start = time.Now()
	for i := 0; i < 10; i++ {
		env.Call(t, "read_query", map[string]any{"query": "BEGIN"})
		flush(t, env.Env)
	}
	t.Logf("call %v", time.Since(start)/10)
}
