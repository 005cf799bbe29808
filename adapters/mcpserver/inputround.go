package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// On the 2026-07-28 revision a server may not send elicitation/create
// while a call runs. The question then travels in the call's result as an
// input request, with a request state the client echoes when it retries
// the call with the person's answer (multi round-trip requests). Nothing
// runs and nothing waits on the server meanwhile: the retry is a new call,
// which measures the statement again and asks again, and an answer counts
// only for the question it was given to:
//
//   - the state is "<expiry>.<HMAC>" over the expiry and the question's
//     text, with a key made when the server starts, so a client cannot
//     forge one, and an answer to another question (the database changed,
//     the impact with it) does not carry over;
//   - a state counts once: a replayed answer gets a new question;
//   - past its expiry (--confirm-wait after the question), the answer is
//     a timeout.

// inputKey names the question among the result's input requests.
const inputKey = "confirm"

// roundKeys signs request states and remembers the ones used.
type roundKeys struct {
	key []byte
	mu  sync.Mutex
	// used are the states answered so far, until they expire.
	used map[string]time.Time
}

func newRoundKeys() *roundKeys {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return &roundKeys{key: k, used: map[string]time.Time{}}
}

func (k *roundKeys) mac(expires int64, text string) string {
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte(strconv.FormatInt(expires, 10) + "\n" + text))
	return hex.EncodeToString(m.Sum(nil))
}

// issue signs a state for text, valid until expires.
func (k *roundKeys) issue(text string, expires time.Time) string {
	e := expires.UnixNano()
	return strconv.FormatInt(e, 10) + "." + k.mac(e, text)
}

// check reports whether state was issued for text and is unused (it is
// then used), and whether it has expired.
func (k *roundKeys) check(state, text string, now time.Time) (ok, expired bool) {
	es, sig, found := strings.Cut(state, ".")
	e, err := strconv.ParseInt(es, 10, 64)
	if !found || err != nil || !hmac.Equal([]byte(sig), []byte(k.mac(e, text))) {
		return false, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for s, until := range k.used {
		if now.After(until) {
			delete(k.used, s)
		}
	}
	if _, seen := k.used[state]; seen {
		return false, false
	}
	k.used[state] = time.Unix(0, e).Add(time.Minute)
	return true, now.After(time.Unix(0, e))
}

// inputRound is the [ports.Confirmer] of one call on a revision that asks
// with input requests: the call's answer, when its retry brought one for
// this question, or else a question to send with the result.
type inputRound struct {
	keys   *roundKeys
	params *mcp.CallToolParamsRaw

	pending *mcp.ElicitParams
	state   string
}

var _ ports.Confirmer = (*inputRound)(nil)

// Confirm decides from the retry's answer to this very question, or
// prepares the question for the call's result.
func (r *inputRound) Confirm(ctx context.Context, q domain.Question) domain.Decision {
	d := domain.Decision{By: domain.DecidedByClient}
	text := q.Text()
	now := time.Now()
	if resp, answered := r.params.InputResponses[inputKey]; answered && r.params.RequestState != "" {
		ok, expired := r.keys.check(r.params.RequestState, text, now)
		switch {
		case ok && expired:
			d.Outcome, d.Note = domain.OutcomeTimedOut, "the answer came after --confirm-wait"
			return d
		case ok:
			res, _ := resp.(*mcp.ElicitResult)
			return decide(d, res)
		}
		// Another question's answer, a forged or a replayed one: ask anew.
	}
	expires := now.Add(domain.DefaultConfirmWait)
	if dl, ok := ctx.Deadline(); ok {
		expires = dl
	}
	r.pending = &mcp.ElicitParams{Mode: "form", Message: text, RequestedSchema: confirmSchema}
	r.state = r.keys.issue(text, expires)
	d.Outcome, d.Note = domain.OutcomeAwaiting, "the question went to the client with the call's result; the client's retry brings the answer"
	return d
}

// result is the call's input-required result, or nil when the call was
// decided (or never asked).
func (r *inputRound) result() *mcp.CallToolResult {
	if r == nil || r.pending == nil {
		return nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputKey: r.pending}, RequestState: r.state}
}
