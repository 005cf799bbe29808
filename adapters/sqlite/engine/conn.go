package engine

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// Handle is the raw SQLite connection behind one modernc.org/sqlite
// connection: the sqlite3* pointer and the libc thread state the driver
// calls it with. It is valid only inside sql.Conn.Raw, while the connection
// is held exclusively.
type Handle struct {
	db  uintptr
	tls *libc.TLS
}

// connPrefix mirrors the first two fields of modernc.org/sqlite's unexported
// conn type. Open checks the mirror by reflection before every use, so
// a driver upgrade that moves them fails loudly instead of reading garbage.
type connPrefix struct {
	db  uintptr
	tls *libc.TLS
}

// Open extracts the Handle from the value sql.Conn.Raw passes.
func Open(driverConn any) (Handle, error) {
	v := reflect.ValueOf(driverConn)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return Handle{}, fmt.Errorf("unexpected driver connection %T", driverConn)
	}
	st := v.Elem().Type()
	if st.PkgPath() != "modernc.org/sqlite" || st.Name() != "conn" || st.NumField() < 2 ||
		st.Field(0).Name != "db" || st.Field(0).Type.Kind() != reflect.Uintptr ||
		st.Field(1).Name != "tls" || st.Field(1).Type != reflect.TypeFor[*libc.TLS]() {
		return Handle{}, fmt.Errorf("modernc.org/sqlite connection layout changed (%s); pin the driver version in go.mod", st)
	}
	p := (*connPrefix)(unsafe.Pointer(v.Pointer()))
	if p.db == 0 || p.tls == nil {
		return Handle{}, fmt.Errorf("driver connection is closed")
	}
	return Handle{db: p.db, tls: p.tls}, nil
}

// QueryOnly reports whether the connection's query_only switch is on, read
// from the flags SQLite keeps for it (db->flags), which is what
// "PRAGMA query_only" returns. Stepping that PRAGMA costs a compile every
// time: SQLite marks every PRAGMA program to run once, so a kept one is
// recompiled on each step.
func (h Handle) QueryOnly() bool {
	var db lib.Tsqlite3
	flags := binary.NativeEndian.Uint64(libc.GoBytes(h.db+unsafe.Offsetof(db.Fflags), int(unsafe.Sizeof(db.Fflags))))
	return flags&lib.SQLITE_QueryOnly != 0
}
