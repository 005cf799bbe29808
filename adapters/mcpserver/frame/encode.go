package frame

import (
	"bytes"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// appendMessage appends msg's wire form to dst, byte for byte what
// jsonrpc.EncodeMessage writes.
//
// A successful response is spliced by hand: {"jsonrpc":"2.0","id":<id>,
// "result":<result>}. EncodeMessage would marshal the result again as a
// json.RawMessage, which runs encoding/json's compactor over every byte of
// it: for a large answer (1000 rows of CSV are ~60 KB of JSON string) that
// third pass over the text was about a fifth of the server's CPU per call
// (BenchmarkServeRows1000). The SDK made the result with its own JSON
// encoder (jsonrpc2.NewResponse), so it is already compact, valid and
// escaped as EncodeMessage would leave it; compacting it again changes
// nothing. Any other message (requests, notifications, errors, an id that
// is not an integer, or a result holding a raw newline, which compact JSON
// never does and which would break the one-message-per-line framing) goes
// through EncodeMessage as before.
func appendMessage(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && len(r.Result) > 0 &&
		bytes.IndexByte(r.Result, '\n') < 0 {
		if id, ok := r.ID.Raw().(int64); ok {
			dst = append(dst, `{"jsonrpc":"2.0","id":`...)
			dst = strconv.AppendInt(dst, id, 10)
			dst = append(dst, `,"result":`...)
			dst = append(dst, r.Result...)
			return append(dst, '}'), nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}
