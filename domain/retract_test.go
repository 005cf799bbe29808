package domain_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestRetractionRoundTripsThroughItsContent(t *testing.T) {
	target, err := domain.NewEvent(0, domain.Genesis, "2026-12-01T10:00:00.000Z", "s", "note", "the API key is abc")
	require.NoError(t, err)
	e, x, err := domain.NewRetraction(target.ID, target.Hash, "2026-12-01T10:01:00.000Z", "s", target, "  wrong: the key was rotated ")
	require.NoError(t, err)
	assert.Equal(t, domain.RetractionKind, e.Kind)
	assert.Equal(t, "retracts event 1: wrong: the key was rotated", e.Content)
	assert.Equal(t, domain.Retraction{EventID: 1, RetractionID: 2, Reason: "wrong: the key was rotated"}, x)
	assert.Equal(t, e.ComputeHash(), e.Hash, "a retraction is an ordinary event of the chain")
	back, ok := domain.ParseRetraction(e)
	require.True(t, ok)
	assert.Equal(t, x, back)
	for _, bad := range []domain.Event{
		{ID: 3, Kind: "note", Content: e.Content},
		{ID: 3, Kind: domain.RetractionKind, Content: "retracts event 01: x"},
		{ID: 3, Kind: domain.RetractionKind, Content: "retracts event 1:"},
		{ID: 3, Kind: domain.RetractionKind, Content: "retracts event one: x"},
	} {
		_, ok := domain.ParseRetraction(bad)
		assert.False(t, ok, bad.Content)
	}
}

func TestRetractionRefusals(t *testing.T) {
	note := domain.Event{ID: 4, Kind: "note", Content: "x"}
	retraction := domain.Event{ID: 5, Kind: domain.RetractionKind, Content: "retracts event 4: y"}
	marker := domain.Event{ID: 6, Kind: domain.SealKind, Content: domain.SealMarkerContent}
	for _, tc := range []struct {
		name   string
		target domain.Event
		reason string
		kind   error
		says   string
	}{
		{"blank reason", note, " \n", domain.ErrInvalidArgument, "reason must not be blank"},
		{"a retraction", retraction, "z", domain.ErrInvalidArgument, "append a new event with " + domain.ToolAppendEvent},
		{"the marker", marker, "z", domain.ErrInvalidArgument, "write a new " + domain.ToolCheckpoint},
	} {
		_, _, err := domain.NewRetraction(9, domain.Genesis, "ts", "s", tc.target, tc.reason)
		assert.True(t, errors.Is(err, tc.kind), "%s: %v", tc.name, err)
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.says, tc.name)
		}
	}
}

func TestResumeSaysHowManyWereRetracted(t *testing.T) {
	in := domain.ResumeInput{Total: 1, Retracted: 2, Events: []domain.Event{{ID: 3, TS: "t", Kind: "note", Content: "kept"}},
		Chain: domain.VerifyResult{OK: true, Events: 5, HeadID: 5}, MaxBytes: 10_000, MaxCellChars: 100}
	assert.Contains(t, domain.RenderResume(in).Text, "# 1 events, 2 retracted left out | ")
	in.Retracted = 0
	assert.NotContains(t, domain.RenderResume(in).Text, "retracted")
}

func TestProvenanceIsOneShortLine(t *testing.T) {
	assert.Equal(t, "claude-code 1.2 over stdio", domain.Provenance{Transport: domain.TransportStdio, Client: "claude-code", ClientVersion: "1.2"}.String())
	assert.Equal(t, "unnamed client over http session h-1", domain.Provenance{Transport: domain.TransportHTTP, HTTPSession: "h-1"}.String())
	assert.Equal(t, "cli: call append_event", domain.Provenance{Transport: domain.TransportCLI, Command: "call append_event"}.String())
	assert.True(t, domain.Provenance{}.IsZero())
}
