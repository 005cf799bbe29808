package app

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// checkSignature completes a chain walk with what the head's signature
// proves (docs/decisions.md#keyed-chain). The signature is read after the
// walk and only up to the walk's head: an append that commits meanwhile
// is past the head and signed in its own transaction, so it never looks
// like an unsigned tail.
func (s *Service) checkSignature(ctx context.Context, r domain.VerifyResult) (domain.VerifyResult, error) {
	if !r.OK {
		return r, nil
	}
	sig, hash, found, err := s.d.Memory.HeadSignature(ctx, r.HeadID)
	if err != nil {
		return domain.VerifyResult{}, err
	}
	return domain.CheckHeadSignature(r, s.chainKey, sig, hash, found), nil
}
