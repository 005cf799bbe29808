package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The throughput figures are also measured with rawSession: a load
// generator that writes pre-formatted JSON-RPC lines and reads the answers
// with one goroutine, as wrk does for HTTP. The SDK's client costs the
// benchmark process about as much CPU per call as the servers under test,
// on the same two cores, so with it every server's rate is capped by the
// client (the do-nothing server itself reaches only ~1.5x a Node peer).
// The raw client's own cost per call is a few microseconds, so its figures
// compare the servers.

// rawStart starts argv (with {db} replaced) and talks MCP to it over stdio
// with raw JSON-RPC lines: initialize, notifications/initialized,
// tools/list (to pick the query tool as mcpSession does), then tools/call.
func rawStart(ctx context.Context, argv []string, floor bool, db string) (session, error) {
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, "{db}", db)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &rawSession{cmd: cmd, in: in, floor: floor, waiting: map[int64]chan []byte{}, done: make(chan struct{})}
	go s.readLoop(bufio.NewReaderSize(out, 1<<16))
	if _, err := s.call(ctx, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-sqlite-memory-bench-raw","version":"1"}}`); err != nil {
		s.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := s.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		s.close()
		return nil, err
	}
	list, err := s.call(ctx, "tools/list", `{}`)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	if err := s.pickTool(list); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// rawSession is one server process driven by raw JSON-RPC lines; calls may
// overlap, answers are matched by id.
type rawSession struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	floor bool
	queryTool

	wmu     sync.Mutex
	next    atomic.Int64
	mu      sync.Mutex
	waiting map[int64]chan []byte
	err     error
	done    chan struct{}
}

func (s *rawSession) readLoop(r *bufio.Reader) {
	defer close(s.done)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			s.mu.Lock()
			s.err = fmt.Errorf("server closed its stdout: %w", err)
			s.mu.Unlock()
			return
		}
		var head struct {
			ID *int64 `json:"id"`
		}
		// Only the id is wanted; a server request or notification (no
		// numeric id of ours) is ignored.
		if json.Unmarshal(line, &head) != nil || head.ID == nil {
			continue
		}
		s.mu.Lock()
		ch := s.waiting[*head.ID]
		delete(s.waiting, *head.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
}

func (s *rawSession) write(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.in.Write(b)
	return err
}

// call sends one request with params (raw JSON) and returns the answer line.
func (s *rawSession) call(ctx context.Context, method, params string) ([]byte, error) {
	id := s.next.Add(1)
	ch := make(chan []byte, 1)
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return nil, s.err
	}
	s.waiting[id] = ch
	s.mu.Unlock()
	req := make([]byte, 0, 64+len(params))
	req = append(req, `{"jsonrpc":"2.0","id":`...)
	req = strconv.AppendInt(req, id, 10)
	req = append(req, `,"method":"`...)
	req = append(req, method...)
	req = append(req, `","params":`...)
	req = append(req, params...)
	req = append(req, "}\n"...)
	if err := s.write(req); err != nil {
		return nil, err
	}
	select {
	case line := <-ch:
		if bytes.Contains(line, []byte(`"error":{`)) && !bytes.Contains(line, []byte(`"result":`)) {
			return nil, fmt.Errorf("error answer: %.200s", line)
		}
		return line, nil
	case <-s.done:
		select {
		case line := <-ch:
			return line, nil
		default:
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return nil, s.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pickTool picks the query tool from a raw tools/list answer
// (pickQueryTool).
func (s *rawSession) pickTool(line []byte) error {
	var ans struct {
		Result struct {
			Tools []listedTool `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &ans); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var err error
	s.queryTool, err = pickQueryTool(ans.Result.Tools)
	return err
}

func (s *rawSession) query(ctx context.Context, sql string, limit, wantRows int) error {
	q, _ := json.Marshal(sql)
	params := `{"name":"` + s.tool + `","arguments":{"` + s.arg + `":` + string(q)
	if s.lim != "" && limit > 0 {
		params += `,"` + s.lim + `":` + strconv.Itoa(limit)
	}
	params += "}}"
	line, err := s.call(ctx, "tools/call", params)
	if err != nil {
		return err
	}
	if s.floor {
		return nil
	}
	if bytes.Contains(line, []byte(`"isError":true`)) {
		return fmt.Errorf("tool error: %.200s", line)
	}
	// Rows are lines of the text content, escaped as \n inside the JSON.
	if wantRows > 0 && bytes.Count(line, []byte(`\n`)) < wantRows {
		return fmt.Errorf("answer holds fewer than %d rows: %.200s", wantRows, line)
	}
	return nil
}

func (s *rawSession) close() {
	s.in.Close()
	stopProcess(s.cmd, s.done)
}
