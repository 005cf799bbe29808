package attack_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func kindOf(err error) string {
	for _, k := range []error{domain.ErrPolicy, domain.ErrInvalidArgument, domain.ErrSQLite, domain.ErrTimeout, domain.ErrGuard, domain.ErrNotFound} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	if err == nil {
		return "OK"
	}
	return "OTHER"
}

func TestProbe(t *testing.T) {
	sqls := strings.Split(os.Getenv("PROBE"), "\n====\n")
	for _, q := range sqls {
		for _, tier := range []domain.Tier{domain.TierRead, domain.TierWrite, domain.TierDestructive} {
			dir := t.TempDir()
			s, err := sqlite.Open(context.Background(), filepath.Join(dir, "t.db"), sqlite.Options{QueryTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for _, seed := range strings.Split(os.Getenv("SEED"), "\n") {
				if strings.TrimSpace(seed) == "" {
					continue
				}
				if _, err := s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierDestructive, SQL: seed}, func([]string) {}, func([]any) bool { return true }); err != nil {
					t.Fatal(seed, err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			var rows [][]any
			if tier == domain.TierRead {
				err = s.Read(ctx, q, func([]string) {}, func(r []any) bool { rows = append(rows, append([]any(nil), r...)); return len(rows) < 5 })
			} else {
				_, err = s.Write(ctx, domain.WriteRequest{Tier: tier, SQL: q, MaxUpdateRows: 500}, func([]string) {}, func(r []any) bool { rows = append(rows, append([]any(nil), r...)); return len(rows) < 5 })
			}
			cancel()
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if len(msg) > 110 {
				msg = msg[:110]
			}
			r := fmt.Sprint(rows)
			if len(r) > 60 {
				r = r[:60]
			}
			fmt.Printf("%-18s %-16s %s %s | %q\n", tier.Tool(), kindOf(err), msg, r, q)
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if !strings.HasPrefix(e.Name(), "t.db") {
					fmt.Println("   NEW FILE", e.Name())
				}
			}
			s.Close()
		}
	}
}
