package sqlite

import (
	"fmt"
	"reflect"
	"unsafe"

	"modernc.org/libc"
)

// handle is the raw SQLite connection behind one modernc.org/sqlite
// connection: the sqlite3* pointer and the libc thread state the driver
// calls it with. It is valid only inside sql.Conn.Raw, while the connection
// is held exclusively.
type handle struct {
	db  uintptr
	tls *libc.TLS
}

// connPrefix mirrors the first two fields of modernc.org/sqlite's unexported
// conn type. rawHandle checks the mirror by reflection before every use, so
// a driver upgrade that moves them fails loudly instead of reading garbage.
type connPrefix struct {
	db  uintptr
	tls *libc.TLS
}

// rawHandle extracts the handle from the value sql.Conn.Raw passes.
func rawHandle(driverConn any) (handle, error) {
	v := reflect.ValueOf(driverConn)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return handle{}, fmt.Errorf("unexpected driver connection %T", driverConn)
	}
	st := v.Elem().Type()
	if st.PkgPath() != "modernc.org/sqlite" || st.Name() != "conn" || st.NumField() < 2 ||
		st.Field(0).Name != "db" || st.Field(0).Type.Kind() != reflect.Uintptr ||
		st.Field(1).Name != "tls" || st.Field(1).Type != reflect.TypeFor[*libc.TLS]() {
		return handle{}, fmt.Errorf("modernc.org/sqlite connection layout changed (%s); pin the driver version in go.mod", st)
	}
	p := (*connPrefix)(unsafe.Pointer(v.Pointer()))
	if p.db == 0 || p.tls == nil {
		return handle{}, fmt.Errorf("driver connection is closed")
	}
	return handle{db: p.db, tls: p.tls}, nil
}
