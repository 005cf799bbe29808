package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// A checkpoint row is not hashed by the chain rule the reference defines
// (events only), so its summary could be edited unseen. This server seals
// every checkpoint it writes into the chain: in the same transaction, right
// after the checkpoint row, it appends an event of kind [SealKind] whose
// content carries the SHA-256 of the checkpoint's fields. The seal is an
// ordinary event, hashed and linked like any other, so the chain's head
// hash covers every sealed checkpoint too, and databases written by the
// reference (or by earlier versions of this server) stay verifiable: their
// checkpoints are simply unsealed.

// SealKind is the kind of the event that seals a checkpoint.
const SealKind = "checkpoint"

// SealPayload returns the bytes a seal hashes: the compact JSON array
// [id,ts,session,summary,last_event_id,head_hash], built like an event's.
func (c Checkpoint) SealPayload() []byte {
	b := make([]byte, 0, 160+len(c.Summary))
	b = append(b, '[')
	b = strconv.AppendInt(b, c.ID, 10)
	for _, s := range [...]string{c.TS, c.Session, c.Summary} {
		b = append(b, ',')
		b = AppendJSONString(b, s)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, c.LastEventID, 10)
	b = append(b, ',')
	b = AppendJSONString(b, c.HeadHash)
	return append(b, ']')
}

// SealLead and SealMark frame the checkpoint's id at the start of every
// seal's content: "checkpoint <id> sealed: sha256 <hex>". A store that
// looks seals up by text builds its own query from them.
const (
	SealLead = "checkpoint "
	SealMark = " sealed: sha256 "
)

// SealPrefix starts the content of the seal of checkpoint id.
func SealPrefix(id int64) string {
	return SealLead + strconv.FormatInt(id, 10) + SealMark
}

// SealContent is the content of c's seal event.
func (c Checkpoint) SealContent() string {
	sum := sha256.Sum256(c.SealPayload())
	return SealPrefix(c.ID) + hex.EncodeToString(sum[:])
}

// IsSealOf reports whether e claims to be the seal of checkpoint id (its
// kind and the start of its content), whether or not it matches.
func IsSealOf(e Event, id int64) bool {
	return e.Kind == SealKind && strings.HasPrefix(e.Content, SealPrefix(id))
}

// NewSeal builds the event that seals c, which must be stored (ID set) and
// pinned to the chain head: the seal follows that head.
func NewSeal(c Checkpoint) (Event, error) {
	return NewEvent(c.LastEventID, c.HeadHash, c.TS, c.Session, SealKind, c.SealContent())
}

// Coverage says how far the chain's hashes cover a checkpoint.
type Coverage int

const (
	// Unsealed is a checkpoint written by the reference or an earlier
	// server, before any sealed one: no hash covers its summary.
	Unsealed Coverage = iota
	// Sealed is a checkpoint whose seal, the event right after its head,
	// matches every field: the chain covers it.
	Sealed
	// SealBroken is a checkpoint that does not match its seal, or that has
	// none although an earlier checkpoint was sealed: it was changed or
	// added outside the server.
	SealBroken
)

// Coverage decides how the chain covers c given seal, the event that
// claims to seal it (nil when none does), and sealedBefore, whether a seal
// of an earlier checkpoint lies at or before c's head.
func (c Checkpoint) Coverage(seal *Event, sealedBefore bool) Coverage {
	switch {
	case seal != nil && seal.ID == c.LastEventID+1 && seal.Content == c.SealContent():
		return Sealed
	case seal != nil || sealedBefore:
		return SealBroken
	}
	return Unsealed
}

// coverageLine is the resume context's line about a checkpoint's coverage.
func coverageLine(cov Coverage, c Checkpoint) string {
	switch cov {
	case Sealed:
		return "# sealed in the chain by event " + strconv.FormatInt(c.LastEventID+1, 10) + ": the chain's hashes cover this summary"
	case SealBroken:
		return "# WARNING: this checkpoint does not match its seal in the chain (or has none, unlike earlier ones): it was changed or added outside the server; do not trust the summary"
	}
	return "# not sealed (written by the reference implementation or an older server): no hash covers this summary"
}

// LooksLikeSeal reports whether an event the agent asks to append would
// look like a checkpoint's seal; only the checkpoint tool writes those.
func LooksLikeSeal(kind, content string) bool {
	content = StripSpace(content)
	rest, ok := strings.CutPrefix(content, "checkpoint ")
	return ok && NormalizeKind(kind) == SealKind && strings.Contains(rest, " sealed: sha256 ")
}
