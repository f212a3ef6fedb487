package apiextensions

import (
	"encoding/json"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/printers"
)

// Server-side Tables of custom resources: NAME, then the version's
// additionalPrinterColumns (AGE when it has none), each cell the column's
// jsonPath evaluated on the object and typed as the column says.
// Upstream: pkg/registry/customresource/tableconvertor.

var ageColumn = columnDef{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}

type columnDef struct {
	Name, Type, Format, Description, JSONPath string
	Priority                                  int32
	path                                      []pathStep
}

// Columns returns the Table's column definitions for this version.
func (s *Served) Columns() []metav1.TableColumnDefinition {
	defs := []metav1.TableColumnDefinition{printers.ColumnsFor(&Unstructured{})[0]} // Name, with ObjectMeta's description
	for _, c := range s.columns() {
		desc := c.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		defs = append(defs, metav1.TableColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format, Description: desc, Priority: c.Priority})
	}
	return defs
}

func (s *Served) columns() []columnDef {
	cols := s.Version.AdditionalPrinterColumns
	if len(cols) == 0 {
		c := ageColumn
		c.path, _ = parseJSONPath(c.JSONPath)
		return []columnDef{c}
	}
	out := make([]columnDef, 0, len(cols))
	for _, c := range cols {
		d := columnDef{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, JSONPath: c.JSONPath, Priority: c.Priority}
		d.path, _ = parseJSONPath(c.JSONPath)
		out = append(out, d)
	}
	return out
}

// Table renders objs; noHeaders leaves the column definitions out (watch events after the first).
func (s *Served) Table(objs []metav1.Object, listMeta metav1.ListMeta, includeObject string, noHeaders bool) (*metav1.Table, error) {
	t := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: listMeta.ResourceVersion, Continue: listMeta.Continue, RemainingItemCount: listMeta.RemainingItemCount},
		Rows:     make([]metav1.TableRow, 0, len(objs)),
	}
	if !noHeaders {
		t.ColumnDefinitions = s.Columns()
	}
	cols := s.columns()
	now := time.Now()
	for _, o := range objs {
		u, ok := o.(*Unstructured)
		if !ok {
			continue
		}
		content := u.Content()
		cells := []any{u.Name}
		for _, c := range cols {
			cells = append(cells, cell(c, content, now))
		}
		row := metav1.TableRow{Cells: cells}
		switch includeObject {
		case "", printers.IncludeMetadata:
			b, err := json.Marshal(metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
				ObjectMeta: u.ObjectMeta,
			})
			if err != nil {
				return nil, err
			}
			row.Object = b
		case printers.IncludeObject:
			b, err := json.Marshal(u)
			if err != nil {
				return nil, err
			}
			row.Object = b
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// cell is upstream's cellForJSONValue: the first value the path selects,
// converted to the column's type (nil when missing or of another type).
func cell(c columnDef, content map[string]any, now time.Time) any {
	if c.path == nil {
		return nil
	}
	results := evalJSONPath(c.path, content)
	if len(results) == 0 || results[0] == nil {
		return nil
	}
	v := results[0]
	switch c.Type {
	case "string":
		return printJSONValue(v)
	case "integer":
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return i
			}
			if f, err := n.Float64(); err == nil {
				return int64(f)
			}
		}
	case "number":
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if str, ok := v.(string); ok {
			ts, err := time.Parse(time.RFC3339, str)
			if err != nil {
				return "<invalid>"
			}
			return printers.HumanDuration(now.Sub(ts))
		}
	}
	return nil
}
