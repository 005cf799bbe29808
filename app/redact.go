package app

import "github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"

// redact takes secret-shaped text out of what the agent asked to store
// (docs/decisions.md#secret-redaction), unless the server was started
// with --redact-secrets=false. It returns the text to store and the
// redactions' kinds for the answer and the audit row (nil when none).
func (s *Service) redact(text string) (string, []domain.Redaction) {
	if s.keepSecrets {
		return text, nil
	}
	return domain.RedactSecrets(text)
}

// redactionAnswer appends the answer's line about rs, if any, to answer.
func redactionAnswer(answer, what string, rs []domain.Redaction) string {
	if note := domain.RedactionNote(what, rs); note != "" {
		return answer + "\n" + note
	}
	return answer
}

// redactedKinds lists rs's kinds for the audit row's detail (never their
// values), nil when there are none.
func redactedKinds(rs []domain.Redaction) []string {
	if len(rs) == 0 {
		return nil
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Kind
	}
	return out
}
