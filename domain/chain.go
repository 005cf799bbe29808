package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Genesis is the prev_hash of the first event and the head hash of an empty
// chain: 64 zeros.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Event is one row of memory_events, the append-only, hash-chained log.
// Build a new one with [NewEvent]; rows read back from the store are rebuilt
// field by field and checked with a [ChainVerifier].
type Event struct {
	// ID is the event's position in the chain, 1 for the first event.
	ID int64
	// TS is the UTC time of the append, spelled as by [FormatTS].
	TS string
	// Session is the id of the server process that appended the event.
	Session string
	// Kind labels the event ("note", "decision", ...), as normalised by
	// [NormalizeKind].
	Kind string
	// Content is the event's text, already stripped.
	Content string
	// PrevHash is the Hash of the event before, or [Genesis] for event 1.
	PrevHash string
	// Hash is [Event.ComputeHash] at the time of the append.
	Hash string
}

// NewEvent validates and builds the event that follows the chain head
// (headID, headHash); an empty chain's head is (0, [Genesis]). The content is
// stripped with [StripSpace] and must not end up empty; the kind goes through
// [NormalizeKind]. The returned event has ID headID+1, PrevHash headHash and
// its Hash computed.
//
// Errors: [ErrInvalidArgument] when the stripped content is empty.
func NewEvent(headID int64, headHash, ts, session, kind, content string) (Event, error) {
	content = StripSpace(content)
	if content == "" {
		return Event{}, Errorf(ErrInvalidArgument, "content must not be empty")
	}
	e := Event{
		ID:       headID + 1,
		TS:       ts,
		Session:  session,
		Kind:     NormalizeKind(kind),
		Content:  content,
		PrevHash: headHash,
	}
	e.Hash = e.ComputeHash()
	return e, nil
}

// Payload returns the bytes that are hashed: the compact JSON array
// [id,ts,session,kind,content,prev_hash] exactly as the reference builds it
// with json.dumps(separators=(",",":"), ensure_ascii=False) (docs/decisions.md#hash-chain).
// The fields are used verbatim; nothing is stripped here.
func (e Event) Payload() []byte {
	return e.appendPayload(make([]byte, 0, 128+len(e.Content)))
}

// appendPayload appends [Event.Payload] to dst.
func (e Event) appendPayload(dst []byte) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, e.ID, 10)
	for _, s := range [...]string{e.TS, e.Session, e.Kind, e.Content, e.PrevHash} {
		dst = append(dst, ',')
		dst = AppendJSONString(dst, s)
	}
	return append(dst, ']')
}

// ComputeHash returns the lowercase hex SHA-256 of [Event.Payload].
func (e Event) ComputeHash() string {
	sum := sha256.Sum256(e.Payload())
	return hex.EncodeToString(sum[:])
}

// The three reasons a chain breaks, word for word as the reference reports
// them (docs/decisions.md#hash-chain).
const (
	reasonIDGap        = "id gap: expected event %d, found %d (rows were deleted or renumbered)"
	reasonPrevHash     = "prev_hash does not match the hash of event %d"
	reasonHashMismatch = "stored hash does not match the recomputed hash (content or metadata was altered)"
)

// ChainVerifier checks a chain one event at a time, in id order, keeping only
// the expected next id and hash: memory stays flat however long the chain
// is, and the caller can stream rows straight from the store. Build it with
// [NewChainVerifier].
type ChainVerifier struct {
	nextID   int64  // the id the next event must have
	headID   int64  // the last good event's id, 0 if none
	headHash string // the last good event's hash, Genesis if none
	breakAt  int64
	reason   string
	broken   bool
	buf      []byte // payload scratch space, reused between events
	// expected is a head hash the caller kept elsewhere, expectedID the
	// good event that has it (see [ChainVerifier.ExpectHead]).
	expected   string
	expectedID int64
	// seals checks every checkpoint against the chain
	// ([ChainVerifier.Checkpoint]).
	seals sealWalk
}

// ExpectHead makes the walk look for hash, a head hash the user kept
// outside the database (from an earlier verify_chain): a chain rewritten
// with every hash recomputed is internally consistent, but no longer holds
// that hash. Pass it through [ParseHeadHash] first.
func (v *ChainVerifier) ExpectHead(hash string) { v.expected = hash }

// NewChainVerifier returns a verifier that expects event 1 linked to [Genesis].
func NewChainVerifier() *ChainVerifier {
	return &ChainVerifier{nextID: 1, headHash: Genesis, buf: make([]byte, 0, 512)}
}

// Add checks the next event, in the reference's order: its id must be the
// expected one, its PrevHash the hash of the event before, and its stored
// Hash the recomputed one. Add returns false at the first failure and from
// then on ignores every event, so the caller may stop reading rows.
func (v *ChainVerifier) Add(e Event) bool {
	if v.broken {
		return false
	}
	switch {
	case e.ID != v.nextID:
		v.fail(e.ID, fmt.Sprintf(reasonIDGap, v.nextID, e.ID))
		return false
	case e.PrevHash != v.headHash:
		v.fail(e.ID, fmt.Sprintf(reasonPrevHash, e.ID-1))
		return false
	case !v.hashMatches(e):
		v.fail(e.ID, reasonHashMismatch)
		return false
	}
	v.headID, v.headHash = e.ID, e.Hash
	v.seals.event(e)
	if v.expected != "" && v.expectedID == 0 && e.Hash == v.expected {
		v.expectedID = e.ID
	}
	v.nextID++
	return true
}

// hashMatches recomputes e's hash without allocating and compares it with
// the stored one. A stored hash in uppercase hex does not match, as in the
// reference, which compares the strings.
func (v *ChainVerifier) hashMatches(e Event) bool {
	if len(e.Hash) != 2*sha256.Size {
		return false
	}
	v.buf = e.appendPayload(v.buf[:0])
	sum := sha256.Sum256(v.buf)
	var hexSum [2 * sha256.Size]byte
	hex.Encode(hexSum[:], sum[:])
	return string(hexSum[:]) == e.Hash
}

// fail records the first break.
func (v *ChainVerifier) fail(id int64, reason string) {
	v.broken, v.breakAt, v.reason = true, id, reason
}

// Result reports the walk so far. total is the number of rows in
// memory_events (count(*)), which the reference reports as "events" even when
// the walk stopped early. HeadID and HeadHash are the last good event, or
// 0 and [Genesis] when none was good. Call it once, after the last event.
//
// The first break wins: the chain's own, then a checkpoint that does not
// match the chain (its head, its seal, or a seal that names it), then a
// kept head hash the chain lacks.
func (v *ChainVerifier) Result(total int64) VerifyResult {
	v.seals.finish(v.broken)
	r := VerifyResult{
		OK:         !v.broken,
		Events:     total,
		HeadID:     v.headID,
		HeadHash:   v.headHash,
		BreakAt:    v.breakAt,
		Reason:     v.reason,
		Expected:   v.expected,
		ExpectedID: v.expectedID,

		Checkpoints: int64(len(v.seals.cps)),
		Sealed:      v.seals.sealed,
	}
	if r.OK && v.seals.badWhy != "" {
		r.OK, r.CheckpointID, r.Reason = false, v.seals.badID, v.seals.badWhy
	}
	if r.OK && r.Expected != "" && r.ExpectedID == 0 {
		r.OK = false
		r.Reason = fmt.Sprintf(reasonNotExpected, r.Expected)
	}
	return r
}

// reasonNotExpected is the break of a chain that is consistent but lacks
// the head hash the user kept.
const reasonNotExpected = "the chain does not contain the head hash you kept (%s): events were rewritten and their hashes recomputed, " +
	"or the hash belongs to another database"

// ParseHeadHash checks a head hash the user kept: 64 hex digits, any case.
//
// Errors: [ErrInvalidArgument] for anything else.
func ParseHeadHash(s string) (string, error) {
	h := StripSpace(s)
	if len(h) != 2*sha256.Size {
		return "", Errorf(ErrInvalidArgument, "expected_head must be a full head_hash (64 hex digits) from an earlier "+ToolVerifyChain+"; got %d characters", len(h))
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", Errorf(ErrInvalidArgument, "expected_head must be a full head_hash (64 hex digits) from an earlier "+ToolVerifyChain)
	}
	return strings.ToLower(h), nil
}

// VerifyResult is the outcome of a chain verification.
type VerifyResult struct {
	// OK is true when every event checked out.
	OK bool
	// Events is the number of rows in memory_events.
	Events int64
	// HeadID and HeadHash identify the last good event (0 and [Genesis]
	// when there is none).
	HeadID   int64
	HeadHash string
	// BreakAt is the id of the first bad event; 0 when OK.
	BreakAt int64
	// Reason says why the chain broke at BreakAt; empty when OK.
	Reason string
	// Expected is the head hash the caller kept ("" when none was given);
	// ExpectedID is the event that has it, 0 when no good event does (the
	// result is then not OK, with BreakAt 0 when the chain itself is).
	Expected   string
	ExpectedID int64
	// Checkpoints counts the checkpoints checked against the chain, Sealed
	// those the chain's hashes cover. CheckpointID is the checkpoint that
	// broke the result (BreakAt is then 0), 0 when none did.
	Checkpoints, Sealed int64
	CheckpointID        int64
	// Signature is what the head's signature proves ([SignatureVerified],
	// ...; [CheckHeadSignature]), "" when the server has no chain key and
	// the chain no signature. SignedBy is the fingerprint of the key
	// that signed the head (or of the server's key), SignedID the newest
	// signed event.
	Signature, SignedBy string
	SignedID            int64
}

// JSON renders the result the way verify_chain reports it, with the
// reference's key order and its json.dumps default separators ", " and ": ":
//
//	{"ok": true, "events": 3, "head_id": 3, "head_hash": "<64 hex>"}
//	{"ok": false, "events": N, "head_id": X, "head_hash": "…", "break_at_id": Y, "reason": "…"}
//
// With a kept head hash ([ChainVerifier.ExpectHead]), "expected_head_id"
// follows "head_hash": the event holding it, 0 when none does. Once the
// chain covers a checkpoint (or one breaks the result), "checkpoints" and
// "sealed" come next (how many were checked, how many the chain covers),
// and a checkpoint that breaks the result is named by "checkpoint_id"
// before "break_at_id" (then 0). With a chain key, or a signature in the
// file, "signature", "key" and "signed_id" come after them
// ([CheckHeadSignature]). A file only the reference wrote, on a server
// without a key, gets the reference's bytes.
//
// Strings are written by [AppendJSONString] (UTF-8, no ASCII escaping,
// docs/decisions.md#fixes-over-the-reference, item 11); every string here is ASCII anyway, so the bytes equal the
// reference's.
func (r VerifyResult) JSON() string {
	b := make([]byte, 0, 160+len(r.Reason))
	b = append(b, `{"ok": `...)
	b = strconv.AppendBool(b, r.OK)
	b = append(b, `, "events": `...)
	b = strconv.AppendInt(b, r.Events, 10)
	b = append(b, `, "head_id": `...)
	b = strconv.AppendInt(b, r.HeadID, 10)
	b = append(b, `, "head_hash": `...)
	b = AppendJSONString(b, r.HeadHash)
	if r.Expected != "" {
		b = append(b, `, "expected_head_id": `...)
		b = strconv.AppendInt(b, r.ExpectedID, 10)
	}
	if r.Sealed > 0 || r.CheckpointID != 0 {
		b = append(b, `, "checkpoints": `...)
		b = strconv.AppendInt(b, r.Checkpoints, 10)
		b = append(b, `, "sealed": `...)
		b = strconv.AppendInt(b, r.Sealed, 10)
	}
	if r.Signature != "" {
		b = append(b, `, "signature": `...)
		b = AppendJSONString(b, r.Signature)
		b = append(b, `, "key": `...)
		b = AppendJSONString(b, r.SignedBy)
		b = append(b, `, "signed_id": `...)
		b = strconv.AppendInt(b, r.SignedID, 10)
	}
	if !r.OK && r.CheckpointID != 0 {
		b = append(b, `, "checkpoint_id": `...)
		b = strconv.AppendInt(b, r.CheckpointID, 10)
	}
	if !r.OK {
		b = append(b, `, "break_at_id": `...)
		b = strconv.AppendInt(b, r.BreakAt, 10)
		b = append(b, `, "reason": `...)
		b = AppendJSONString(b, r.Reason)
	}
	return string(append(b, '}'))
}

// ChainSummary is the chain's half of the resume context's status line:
// "chain ok (<events> events)" or "chain BROKEN at event <id>: <reason>".
func (r VerifyResult) ChainSummary() string {
	if !r.OK && r.BreakAt == 0 {
		return "chain BROKEN: " + r.Reason
	}
	if r.OK {
		return "chain ok (" + strconv.FormatInt(r.Events, 10) + " events)"
	}
	return "chain BROKEN at event " + strconv.FormatInt(r.BreakAt, 10) + ": " + r.Reason
}
