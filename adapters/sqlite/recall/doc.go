// Package recall answers search_memory (ports.MemoryRecall): it ranks the
// events and checkpoint summaries that match the agent's words in the
// server's FTS5 index, BM25 first and recency as the tie-breaker, and
// reads single events and completion values for the prompts and resources
// (docs/decisions.md#memory-search).
package recall
