package attack_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// perf2Bumps names the tables the schema bumps create.
var perf2Bumps atomic.Int64

// perf2BumpSchema changes the schema of env's file from a connection of its
// own, as another program would: every statement the server keeps compiled
// (adapters/sqlite/stmtcache.go) is recompiled by SQLite on its next use.
func perf2BumpSchema(t *testing.T, env *corpusEnv) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+env.DBPath+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(fmt.Sprintf("CREATE TABLE perf2_bump_%d (x)", perf2Bumps.Add(1)))
	require.NoError(t, err)
}

// TestAttackCorpusTwiceAcrossSchemaChange runs every case in every tier on
// the same server twice, then once more after the schema changed: the
// server keeps a plain read compiled from its second call on, so the third
// read-tier call meets the kept statement and SQLite recompiles it. Every
// call must get the case's verdict. A statement that ran in a write tier gets a
// fresh copy of the database before it runs again. The runaway cases,
// which are about deadlines rather than compiling, are left to
// TestAttackCorpus; the others get a deadline long enough that a loaded
// machine cannot turn a refusal into a timeout.
func TestAttackCorpusTwiceAcrossSchemaChange(t *testing.T) {
	seededTemplate(t)
	for _, cat := range corpus() {
		if cat.name == "runaway" {
			continue
		}
		t.Run(cat.name, func(t *testing.T) {
			for _, c := range cat.cases {
				t.Run(caseName(c.sql), func(t *testing.T) {
					t.Parallel()
					env := fresh(t)
					for i, tier := range allTiers {
						for round := range 3 {
							level := fmt.Sprintf("%s adapter, call %d", tier.Tool(), round+1)
							if round == 2 {
								perf2BumpSchema(t, env)
							}
							err := perf2Call(env, tier, env.expand(c.sql))
							if checkKind(t, level, c.want[i], err) {
								checkHint(t, level, c.want[i], err.Error(), env.Dir)
							}
							if err == nil && tier != domain.TierRead {
								env = fresh(t)
							}
						}
					}
					assert.False(t, t.Failed())
				})
			}
		})
	}
}

// TestLegitimateReadsTwiceAcrossSchemaChange: every legitimate read, kept
// compiled from its second call on, is still allowed after the schema
// changed under it and SQLite recompiled it, with the same columns.
func TestLegitimateReadsTwiceAcrossSchemaChange(t *testing.T) {
	env := fresh(t)
	for _, q := range legitimateReads {
		var cols [3][]string
		for round := range 3 {
			if round == 2 {
				perf2BumpSchema(t, env)
			}
			ctx, cancel := context.WithTimeout(context.Background(), corpusLimits().QueryTimeout)
			rows := 0
			err := env.Statements.Read(ctx, q, func(c []string) { cols[round] = c }, func([]any) bool { rows++; return rows < 1000 })
			cancel()
			assert.NoError(t, err, "call %d: %s", round+1, q)
		}
		assert.Equal(t, cols[0], cols[2], "the recompiled statement has the same columns: %s", q)
	}
	require.Equal(t, baselineConnState(t), connState(t, env.Store))
}

// perf2Call is adapterCall with a 20 s deadline.
func perf2Call(env *corpusEnv, tier domain.Tier, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rows := 0
	page := func([]any) bool { rows++; return rows < 1000 }
	switch tier {
	case domain.TierRead:
		return env.Statements.Read(ctx, sql, func([]string) {}, page)
	case domain.TierWrite:
		_, err := env.Statements.Write(ctx, domain.WriteRequest{Tier: tier, SQL: sql, MaxUpdateRows: corpusLimits().MaxUpdateRows}, func([]string) {}, page)
		return err
	}
	if _, err := env.Statements.Compile(ctx, tier, sql); err != nil {
		return err
	}
	_, err := env.Statements.Write(ctx, domain.WriteRequest{Tier: tier, SQL: sql}, func([]string) {}, page)
	return err
}
