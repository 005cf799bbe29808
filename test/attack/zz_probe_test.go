package attack_test

import (
	"errors"

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
