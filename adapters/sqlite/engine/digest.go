package engine

import (
	"encoding/binary"
	"io"
	"math"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// WriteTyped writes the current row's values to w with their storage
// classes, so that two rows write the same bytes only when every value is
// the same value of the same type (1 and '1' differ, as do a NULL and an
// empty text): for each column its type byte, then for INTEGER and REAL
// eight big-endian bytes, for TEXT and BLOB the length in eight bytes and
// the bytes; the row ends with 0xff. Undo compares objects by a hash of
// this stream.
func (s Stmt) WriteTyped(w io.Writer) {
	tls, p := s.h.tls, s.p
	var num [9]byte
	for i := 0; i < s.ncol; i++ {
		typ := lib.Xsqlite3_column_type(tls, p, int32(i))
		num[0] = byte(typ)
		switch typ {
		case lib.SQLITE_INTEGER:
			binary.BigEndian.PutUint64(num[1:], uint64(lib.Xsqlite3_column_int64(tls, p, int32(i))))
			w.Write(num[:])
		case lib.SQLITE_FLOAT:
			binary.BigEndian.PutUint64(num[1:], math.Float64bits(lib.Xsqlite3_column_double(tls, p, int32(i))))
			w.Write(num[:])
		case lib.SQLITE_TEXT, lib.SQLITE_BLOB:
			var ptr uintptr
			if typ == lib.SQLITE_TEXT {
				ptr = lib.Xsqlite3_column_text(tls, p, int32(i))
			} else {
				ptr = lib.Xsqlite3_column_blob(tls, p, int32(i))
			}
			size := int(lib.Xsqlite3_column_bytes(tls, p, int32(i)))
			binary.BigEndian.PutUint64(num[1:], uint64(size))
			w.Write(num[:])
			if ptr != 0 && size > 0 {
				w.Write(libc.GoBytes(ptr, size))
			}
		default:
			w.Write(num[:1])
		}
	}
	w.Write([]byte{0xff})
}
