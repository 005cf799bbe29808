package domain

// Checkpoint is one row of memory_checkpoints: a summary written by the agent
// and anchored to the chain head at that moment, so a later session knows
// which events came after it. Build a new one with [NewCheckpoint].
type Checkpoint struct {
	// ID is the store's rowid; 0 until the checkpoint is stored.
	ID int64
	// TS is the UTC time of the checkpoint, spelled as by [FormatTS].
	TS string
	// Session is the id of the server process that wrote it.
	Session string
	// Summary is the agent's summary, already stripped.
	Summary string
	// LastEventID is the chain head's id when written, 0 for an empty chain.
	LastEventID int64
	// HeadHash is the chain head's hash when written, [Genesis] for an
	// empty chain.
	HeadHash string
}

// NewCheckpoint validates and builds a checkpoint at the chain head
// (headID, headHash); an empty chain's head is (0, [Genesis]). The summary is
// stripped with [StripSpace] and must not end up empty. ID stays 0: the store
// assigns it.
//
// Errors: [ErrInvalidArgument] when the stripped summary is empty.
func NewCheckpoint(headID int64, headHash, ts, session, summary string) (Checkpoint, error) {
	summary = StripSpace(summary)
	if summary == "" {
		return Checkpoint{}, Errorf(ErrInvalidArgument, "summary must not be empty")
	}
	return Checkpoint{
		TS:          ts,
		Session:     session,
		Summary:     summary,
		LastEventID: headID,
		HeadHash:    headHash,
	}, nil
}

// Anchored reports whether the checkpoint still matches the chain (docs/decisions.md#hash-chain,
// anchored). A checkpoint taken on an empty chain needs HeadHash to be
// [Genesis]. Otherwise the event LastEventID must exist (eventExists) and its
// stored hash (eventHash) must equal HeadHash; eventHash is ignored when the
// event does not exist.
func (c Checkpoint) Anchored(eventHash string, eventExists bool) bool {
	if c.LastEventID == 0 {
		return c.HeadHash == Genesis
	}
	return eventExists && eventHash == c.HeadHash
}
