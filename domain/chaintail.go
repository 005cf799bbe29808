package domain

// NewChainVerifierAfter returns a verifier that continues a chain already
// verified up to event id with hash: the next event must be id+1 and link
// to hash. Checkpoints are not checked by it (see [ChainVerifier.Checkpoint]);
// a caller that resumes a walk this way has established by other means that
// nothing but the events after id changed since the first walk.
func NewChainVerifierAfter(id int64, hash string) *ChainVerifier {
	v := NewChainVerifier()
	v.nextID, v.headID, v.headHash = id+1, id, hash
	return v
}
