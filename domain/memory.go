package domain

// ResumeState is what the memory store loads for get_resume_context.
type ResumeState struct {
	// Checkpoint is the latest checkpoint, or nil.
	Checkpoint *Checkpoint
	// Anchored reports whether the checkpoint still matches its event.
	Anchored bool
	// Coverage says whether the chain seals the checkpoint.
	Coverage Coverage
	// Events are the most recent events after the checkpoint, oldest first.
	Events []Event
	// Total counts all events after the checkpoint (kinds excluded,
	// retracted events and retractions left out).
	Total int
	// Retracted counts the retracted events after the checkpoint, which
	// Events and Total leave out.
	Retracted int
}
