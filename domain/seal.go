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

// The reference writes no seals, so a checkpoint without one may be the
// reference's, and only this server's may be required to have one. The
// chain tells them apart: the first checkpoint this server writes into a
// chain whose latest checkpoint it did not seal is preceded by a marker
// event (kind [SealKind], content [SealMarkerContent]), and anchored to it.
// From there on every checkpoint anchored at or after a marker or a seal is
// this server's and must be sealed. Deleting a seal that is the chain's last
// event leaves the marker (or an earlier seal) at or before the checkpoint's
// head, so the missing seal is a break; the only way to make such a
// checkpoint look like the reference's is to delete the marker and the seal
// too and re-point the checkpoint at an earlier event: that is cutting the
// chain's tail, which only a head hash kept elsewhere (verify_chain's
// expected_head) can reveal.

// SealMarkerContent is the content of the marker event.
const SealMarkerContent = "checkpoints are sealed from here on: each is followed by an event of kind checkpoint that hashes it"

// IsSealMarker reports whether e is the marker.
func IsSealMarker(e Event) bool { return e.Kind == SealKind && e.Content == SealMarkerContent }

// SealID returns the checkpoint id e claims to seal, when e is a seal.
func SealID(e Event) (int64, bool) {
	if e.Kind != SealKind {
		return 0, false
	}
	rest, ok := strings.CutPrefix(e.Content, SealLead)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, SealMark)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(num, 10, 64)
	if err != nil || strconv.FormatInt(id, 10) != num {
		return 0, false
	}
	return id, true
}

// MarksSealing reports whether e shows that this server seals the
// checkpoints anchored at or after it: a marker or a seal.
func MarksSealing(e Event) bool {
	if IsSealMarker(e) {
		return true
	}
	_, ok := SealID(e)
	return ok
}

// WithSealMarker returns the marker event that follows c's head, and c
// anchored to it instead (see [SealMarkerContent]). The store writes the
// marker, then c, then c's seal, in one transaction.
func (c Checkpoint) WithSealMarker() (Event, Checkpoint, error) {
	m, err := NewEvent(c.LastEventID, c.HeadHash, c.TS, c.Session, SealKind, SealMarkerContent)
	if err != nil {
		return Event{}, c, err
	}
	c.LastEventID, c.HeadHash = m.ID, m.Hash
	return m, c, nil
}

// Coverage says how far the chain's hashes cover a checkpoint.
type Coverage int

const (
	// Unsealed is a checkpoint the reference (or an older server) wrote:
	// no seal, and no marker or seal at or before its head.
	Unsealed Coverage = iota
	// Sealed is a checkpoint whose seal, the event right after its head,
	// matches every field: the chain covers it.
	Sealed
	// SealBroken is a checkpoint that does not match the seal that names
	// it, or whose seal is elsewhere than right after its head: it was
	// changed outside the server.
	SealBroken
	// SealMissing is a checkpoint this server must have sealed (a marker
	// or a seal lies at or before its head) that has no seal: its seal was
	// deleted, or the checkpoint was added outside the server.
	SealMissing
)

// Coverage decides how the chain covers c given seal, the event that
// claims to seal it (nil when none does), and ours, whether a marker or a
// seal lies at or before c's head ([MarksSealing]).
func (c Checkpoint) Coverage(seal *Event, ours bool) Coverage {
	return coverageOf(c, c.SealContent(), seal, ours)
}

// coverageLine is the resume context's line about a checkpoint's coverage.
func coverageLine(cov Coverage, c Checkpoint) string {
	switch cov {
	case Sealed:
		return "# sealed in the chain by event " + strconv.FormatInt(c.LastEventID+1, 10) + ": the chain's hashes cover this summary"
	case SealBroken:
		return "# WARNING: this checkpoint does not match its seal in the chain: it was changed outside the server; do not trust the summary"
	case SealMissing:
		return "# WARNING: this checkpoint has no seal in the chain, although the chain shows this server wrote it (a marker or seal lies at or before its head): its seal was deleted or the checkpoint added outside the server; do not trust the summary"
	}
	return "# not sealed (written by the reference implementation or an older server): no hash covers this summary"
}

// LooksLikeSeal reports whether an event the agent asks to append would
// look like a checkpoint's seal or the marker; only the checkpoint tool
// writes those.
func LooksLikeSeal(kind, content string) bool {
	content = StripSpace(content)
	if NormalizeKind(kind) != SealKind {
		return false
	}
	if strings.Contains(content, "sealed from here on") {
		return true // the marker
	}
	rest, ok := strings.CutPrefix(content, "checkpoint ")
	return ok && strings.Contains(rest, " sealed: sha256 ")
}
