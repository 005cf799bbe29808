package domain_test

import (
	"fmt"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Each event's hash covers its fields and the hash of the event before, so
// a chain starts from Genesis and every append reads the head first. The
// payload is the compact JSON array the reference hashes, byte for byte.
func ExampleNewEvent() {
	e, err := domain.NewEvent(0, domain.Genesis, "2026-09-13T10:11:12Z", "20260913T101100Z-3fa9", "", "  hello world\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.ID, e.Kind)
	fmt.Println(string(e.Payload()))
	fmt.Println(e.Hash)
	// Output:
	// 1 note
	// [1,"2026-09-13T10:11:12Z","20260913T101100Z-3fa9","note","hello world","0000000000000000000000000000000000000000000000000000000000000000"]
	// f4a4ee18857837ec4dd5f406a52841a34e82da2cd871dcce1cf1175d3def4aa7
}

// A verifier walks the chain in id order and stops at the first break:
// here someone edited the second event's content without recomputing its
// hash.
func ExampleChainVerifier() {
	first, _ := domain.NewEvent(0, domain.Genesis, "2026-09-13T10:11:12Z", "20260913T101100Z-3fa9", "note", "start")
	second, _ := domain.NewEvent(first.ID, first.Hash, "2026-09-13T10:11:13Z", "20260913T101100Z-3fa9", "decision", "use SQLite")
	second.Content = "use something else"

	v := domain.NewChainVerifier()
	for _, e := range []domain.Event{first, second} {
		if !v.Add(e) {
			break
		}
	}
	r := v.Result(2)
	fmt.Println(r.OK, r.HeadID, r.BreakAt)
	fmt.Println(r.Reason)
	// Output:
	// false 1 2
	// stored hash does not match the recomputed hash (content or metadata was altered)
}

// A rewrite that recomputes every hash leaves a consistent chain; only a
// head hash kept outside the database catches it.
func ExampleChainVerifier_ExpectHead() {
	kept, _ := domain.NewEvent(0, domain.Genesis, "2026-09-13T10:11:12Z", "20260913T101100Z-3fa9", "note", "start")
	rewritten, _ := domain.NewEvent(0, domain.Genesis, "2026-09-13T10:11:12Z", "20260913T101100Z-3fa9", "note", "forged start")

	v := domain.NewChainVerifier()
	v.ExpectHead(kept.Hash)
	v.Add(rewritten)
	r := v.Result(1)
	fmt.Println(r.OK)
	fmt.Println(r.Reason)
	// Output:
	// false
	// the chain does not contain the head hash you kept (e5de31925668e652e7bfb50969a007b17d3f77a09f2e1147364ca99ceebff460): events were rewritten and their hashes recomputed, or the hash belongs to another database
}
