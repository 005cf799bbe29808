package sqlite

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestPerf2ScratchStartup(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for i := 0; i < 5; i++ {
		expectedOnce = sync.Once{}
		t0 := time.Now()
		_, _ = expectedObjects(ctx)
		t1 := time.Now()
		s, err := Open(ctx, path, Options{})
		t2 := time.Now()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		t.Logf("expected %v open(existing, cached expected) %v", t1.Sub(t0), t2.Sub(t1))
	}
}
