package sqlite

import (
	"bytes"
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// The resume context verifies the chain on every call; to keep that cost
// flat, the core remembers the chain it verified and asks the memory store
// (adapters/sqlite/memory/verified.go, through OwnMark and OwnSince)
// whether anything but this process's own memory and audit writes
// committed to the file since (docs/decisions.md#resume-verifies-what-changed).
//
// SQLite counts the write transactions of a WAL database in the header of
// its wal-index, the -shm file every connection of every process shares
// (the "iChange" field, documented in SQLite's WAL file format). Every
// commit, by any connection of any process, adds one. This process brackets
// each of its own memory and audit commits with two reads of the counter:
// when the second is exactly one more than the first, the one commit in
// between was its own. A run of such commits from the mark the core holds
// to the counter now means nobody else committed; anything else (a
// foreign commit, an agent write, a counter that cannot be read, a -shm
// file that is not the one the connections share) ends the run, and the
// core walks the whole chain again.

// walHdr is what a mark holds of the wal-index header: the commit counter
// and the WAL's salts (new random ones whenever the WAL starts afresh).
type walHdr struct {
	change uint32
	salt   [2]uint32
}

// ownCommits is the run of this process's commits since the core's mark.
type ownCommits struct {
	armed atomic.Bool // a mark was handed out: commits are bracketed

	mu     sync.Mutex
	shm    *os.File // the -shm file, opened on the first read
	shmErr bool     // it cannot be read: every check fails
	base   walHdr   // the mark the run starts at
	next   walHdr   // where this process's commits have brought it
	run    bool     // base..next was reached by this process's commits only
}

// readHdr reads the wal-index header. Both copies must agree and be
// initialised; otherwise (a writer is updating it, or it is not a WAL
// index) ok is false.
func (o *ownCommits) readHdr(path string) (h walHdr, ok bool) {
	if o.shmErr {
		return h, false
	}
	if o.shm == nil {
		f, err := os.Open(path + "-shm")
		if err != nil {
			return h, false
		}
		o.shm = f
	}
	var b [96]byte
	if _, err := o.shm.ReadAt(b[:], 0); err != nil {
		return h, false
	}
	ne := binary.NativeEndian
	// iVersion 3007000, isInit 1, and the two 48-byte copies equal.
	if ne.Uint32(b[0:]) != 3007000 || b[12] != 1 || !bytes.Equal(b[:48], b[48:]) {
		return h, false
	}
	return walHdr{change: ne.Uint32(b[8:]), salt: [2]uint32{ne.Uint32(b[32:]), ne.Uint32(b[36:])}}, true
}

// sameShm reports whether the -shm file at path is still the one read.
func (o *ownCommits) sameShm(path string) bool {
	if o.shm == nil {
		return false
	}
	fi, err := os.Stat(path + "-shm")
	if err != nil {
		return false
	}
	held, err := o.shm.Stat()
	return err == nil && os.SameFile(fi, held)
}

// before is read just before one of this process's memory or audit write
// transactions; pass it to after once it committed.
func (s *Store) ownBefore() (walHdr, bool) {
	o := &s.own
	if !o.armed.Load() {
		return walHdr{}, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.readHdr(s.path)
}

// ownAfter extends the run with the commit that began at b, or ends the
// run when that commit was not the only one since b, or not the run's next.
func (s *Store) ownAfter(b walHdr, ok bool) {
	o := &s.own
	if !o.armed.Load() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	a, aok := o.readHdr(s.path)
	if ok && aok && o.run && b == o.next && a.change == b.change+1 {
		o.next = a
		return
	}
	o.run = false
}

// closeShm releases the -shm file (in Close).
func (o *ownCommits) closeShm() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.shm != nil {
		_ = o.shm.Close()
		o.shm = nil
	}
	o.shmErr = true
}

// mark is a run's start as the port hands it out.
func (h walHdr) mark() ports.MemoryMark {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:], h.change)
	binary.BigEndian.PutUint32(b[4:], h.salt[0])
	binary.BigEndian.PutUint32(b[8:], h.salt[1])
	return ports.MemoryMark(b[:])
}

// restart starts a new run at the header now and returns its mark.
func (s *Store) restart() (ports.MemoryMark, bool) {
	o := &s.own
	o.armed.Store(true)
	o.mu.Lock()
	defer o.mu.Unlock()
	h, ok := o.readHdr(s.path)
	if !ok || !o.sameShm(s.path) {
		o.run = false
		return "", false
	}
	o.base, o.next, o.run = h, h, true
	return h.mark(), true
}

// unchanged reports whether only this process's commits led from m to
// the header now.
func (s *Store) unchanged(m ports.MemoryMark) bool {
	o := &s.own
	o.mu.Lock()
	defer o.mu.Unlock()
	h, ok := o.readHdr(s.path)
	return ok && o.run && o.base.mark() == m && h == o.next && o.sameShm(s.path)
}
