package fake

import (
	"context"
	"strings"
	"sync"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// Schema is an in-memory [ports.SchemaReader] and [ports.ViewWriter]: a
// list of tables, their descriptions and the stored schema objects. Names
// are matched ignoring ASCII case, as SQLite matches them. ReplaceView
// adds or replaces a view object (its SQL is the view's body, which is
// enough for the core) and seals the audit entry into Log.
type Schema struct {
	TableList    []domain.TableInfo
	Descriptions map[string]domain.TableDescription // by lower-case name
	ObjectList   []domain.SchemaObject
	// Err, when set, fails every method.
	Err error
	// ViewErr, when set, fails ReplaceView (nothing is stored, nothing
	// sealed).
	ViewErr error
	// Log receives the audit entries ReplaceView seals.
	Log *AuditLog
	// Asked are the views ReplaceView was given, in order.
	Asked []domain.View

	mu sync.Mutex
}

var (
	_ ports.SchemaReader = (*Schema)(nil)
	_ ports.ViewWriter   = (*Schema)(nil)
)

// AddTable adds a table with its columns (name and declared type pairs)
// and row count.
func (s *Schema) AddTable(name string, rows int64, columns ...[2]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := domain.TableDescription{Name: name, Type: "table", Rows: rows}
	for i, c := range columns {
		d.Columns = append(d.Columns, domain.Column{CID: int64(i), Name: c[0], Type: c[1]})
	}
	if s.Descriptions == nil {
		s.Descriptions = map[string]domain.TableDescription{}
	}
	s.Descriptions[strings.ToLower(name)] = d
	s.TableList = append(s.TableList, domain.TableInfo{Name: name, Type: "table", Rows: rows})
	s.ObjectList = append(s.ObjectList, domain.SchemaObject{Type: "table", Name: name, TableName: name, SQL: "CREATE TABLE " + name + " (...)"})
}

// Tables lists TableList; without counts every Rows is -1.
func (s *Schema) Tables(_ context.Context, counts bool) ([]domain.TableInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return nil, s.Err
	}
	out := append([]domain.TableInfo(nil), s.TableList...)
	if !counts {
		for i := range out {
			out[i].Rows = -1
		}
	}
	return out, nil
}

// Describe returns the description of table, or [domain.ErrNotFound].
func (s *Schema) Describe(_ context.Context, table string) (domain.TableDescription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return domain.TableDescription{}, s.Err
	}
	d, ok := s.Descriptions[strings.ToLower(table)]
	if !ok {
		return d, domain.Errorf(domain.ErrNotFound, "no table or view named %s; use list_tables to see the names", domain.Quote(table))
	}
	return d, nil
}

// Objects returns ObjectList.
func (s *Schema) Objects(context.Context) ([]domain.SchemaObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return nil, s.Err
	}
	return append([]domain.SchemaObject(nil), s.ObjectList...), nil
}

// Object returns the object named name, or [domain.ErrNotFound].
func (s *Schema) Object(_ context.Context, name string) (domain.SchemaObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Err != nil {
		return domain.SchemaObject{}, s.Err
	}
	for _, o := range s.ObjectList {
		if strings.EqualFold(o.Name, name) {
			return o, nil
		}
	}
	return domain.SchemaObject{}, domain.Errorf(domain.ErrNotFound, "no object named %s", domain.Quote(name))
}

// ReplaceView stores v as a view object and seals audit's entry into Log.
func (s *Schema) ReplaceView(_ context.Context, v domain.View, replace bool, audit ports.AuditFunc[string]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Asked = append(s.Asked, v)
	if s.Err != nil {
		return s.Err
	}
	if s.ViewErr != nil {
		return s.ViewErr
	}
	obj := domain.SchemaObject{Type: "view", Name: v.Name, TableName: v.Name, SQL: v.Body}
	replaced := false
	for i, o := range s.ObjectList {
		if strings.EqualFold(o.Name, v.Name) {
			if !replace || o.Type != "view" {
				return domain.Errorf(domain.ErrConflict, "%s %s already exists", o.Type, domain.Quote(o.Name))
			}
			s.ObjectList[i], replaced = obj, true
		}
	}
	if !replaced {
		s.ObjectList = append(s.ObjectList, obj)
		s.TableList = append(s.TableList, domain.TableInfo{Name: v.Name, Type: "view", Rows: -1})
	}
	seal(s.Log, audit, v.Name)
	return nil
}

// seal stores the entry a write's audit function builds, as a store does
// just before COMMIT.
func seal[T any](log *AuditLog, audit ports.AuditFunc[T], stored T) {
	if audit == nil {
		return
	}
	e := audit(stored)
	if log != nil {
		log.add(e)
	}
}
