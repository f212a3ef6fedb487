// Package printers renders objects as server-side Tables, the form kubectl
// get asks for (Accept: application/json;as=Table;v=v1;g=meta.k8s.io) and
// prints verbatim: the columns, their descriptions and every cell are
// computed here, on the server.
//
// Upstream: pkg/printers/internalversion/printers.go (kubernetes v1.35) for
// the per-kind columns and cells, staging/src/k8s.io/apiserver/pkg/registry/
// rest/table.go for the default table of kinds without a printer, and
// k8s.io/apimachinery/pkg/util/duration for the Age cells.
package printers

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"kubik/ch01-apiserver/api/metav1"
)

// Values of the includeObject query parameter: what each row carries in
// its "object" field.
const (
	IncludeMetadata = "Metadata" // a PartialObjectMetadata (the default)
	IncludeObject   = "Object"   // the full object (kubectl --sort-by)
	IncludeNone     = "None"     // nothing
)

// Options controls how a Table is rendered.
type Options struct {
	// IncludeObject is "Metadata" (also when empty), "Object" or "None".
	IncludeObject string
	// NoHeaders leaves out the column definitions ("columnDefinitions":
	// null), as for every watch event after the first.
	NoHeaders bool
	// Now is the moment Age cells are measured from; zero means time.Now().
	Now time.Time
}

// printer is the column definitions of one kind plus the function that fills a row.
type printer struct {
	columns []metav1.TableColumnDefinition
	// row returns the cells of one object and its row conditions.
	row func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition)
	// less, when set, orders a list's rows (upstream's list printers that
	// sort, as printFlowSchemaList does); nil keeps the storage order.
	less func(a, b metav1.Object) bool
}

// Table renders objs as one Table. listMeta gives the Table's metadata:
// pass the list's ListMeta for a list, and ListMeta{ResourceVersion: the
// object's resourceVersion} for a single object or a watch event. All objs
// should be of one kind; the columns are those of the first object (or of
// the default table for an empty list of unknown kind).
func Table(objs []metav1.Object, listMeta metav1.ListMeta, opts Options) (*metav1.Table, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	var p printer
	if len(objs) > 0 {
		p = printerFor(objs[0])
	} else {
		p = defaultPrinter
	}
	table := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta: metav1.ListMeta{
			ResourceVersion:    listMeta.ResourceVersion,
			Continue:           listMeta.Continue,
			RemainingItemCount: listMeta.RemainingItemCount,
		},
		Rows: make([]metav1.TableRow, 0, len(objs)),
	}
	if !opts.NoHeaders {
		table.ColumnDefinitions = p.columns
	}
	if p.less != nil {
		objs = slices.Clone(objs)
		sort.SliceStable(objs, func(i, j int) bool { return p.less(objs[i], objs[j]) })
	}
	for _, obj := range objs {
		cells, conditions := printerFor(obj).row(obj, now)
		row := metav1.TableRow{Cells: cells, Conditions: conditions}
		object, err := rowObject(obj, opts.IncludeObject)
		if err != nil {
			return nil, err
		}
		row.Object = object
		table.Rows = append(table.Rows, row)
	}
	return table, nil
}

// TableForList renders an empty list of a known kind: sample is any value
// of the item kind (for example &corev1.Pod{}), used only to pick columns.
func TableForList(sample metav1.Object, objs []metav1.Object, listMeta metav1.ListMeta, opts Options) (*metav1.Table, error) {
	table, err := Table(objs, listMeta, opts)
	if err != nil {
		return nil, err
	}
	if !opts.NoHeaders {
		table.ColumnDefinitions = ColumnsFor(sample)
	}
	return table, nil
}

// ColumnsFor returns the column definitions of obj's kind.
func ColumnsFor(obj metav1.Object) []metav1.TableColumnDefinition {
	return printerFor(obj).columns
}

// rowObject builds the "object" of a row: upstream's handler replaces each
// object with meta.AsPartialObjectMetadata unless includeObject says
// otherwise.
func rowObject(obj metav1.Object, include string) (json.RawMessage, error) {
	switch include {
	case "", IncludeMetadata:
		partial := metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
			ObjectMeta: *obj.GetObjectMeta(),
		}
		return json.Marshal(partial)
	case IncludeObject:
		return json.Marshal(obj)
	case IncludeNone:
		return nil, nil
	}
	return nil, fmt.Errorf("unknown includeObject value %q", include)
}

// Common column definitions.

var (
	nameColumn = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: doc("meta/v1 ObjectMeta.name")}
	ageColumn  = metav1.TableColumnDefinition{Name: "Age", Type: "string", Description: doc("meta/v1 ObjectMeta.creationTimestamp")}
)

// column is shorthand for a column definition; wide columns have priority 1
// and show only with kubectl get -o wide.
func column(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description}
}

func wide(c metav1.TableColumnDefinition) metav1.TableColumnDefinition {
	c.Priority = 1
	return c
}

// doc returns a SwaggerDoc text; a missing key is a programming error.
func doc(key string) string {
	d, ok := swaggerDocs[key]
	if !ok {
		panic("printers: no SwaggerDoc for " + key)
	}
	return d
}

// defaultPrinter is upstream's table for kinds without a printer
// (rest.NewDefaultTableConvertor): Name and "Created At" as an RFC 3339
// date.
var defaultPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		{Name: "Created At", Type: "date", Description: doc("meta/v1 ObjectMeta.creationTimestamp")},
	},
	row: func(obj metav1.Object, _ time.Time) ([]any, []metav1.TableRowCondition) {
		meta := obj.GetObjectMeta()
		return []any{meta.Name, meta.CreationTimestamp.UTC().Format(time.RFC3339)}, nil
	},
}

// age is the Age cell: the time since t, or "<unknown>" for a zero time.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(now.Sub(t.Time))
}

func ageMicro(t metav1.MicroTime, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(now.Sub(t.Time))
}

// HumanDuration returns a succinct representation of d with ~2-3
// significant figures, as upstream's duration.HumanDuration: "79s",
// "4m21s", "16m", "3h5m", "20h", "3d4h", "300d", "2y10d", "9y". Up to two
// seconds in the future count as "0s" (clock skew); further is "<invalid>".
func HumanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := int(d/time.Second) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := int(d/time.Minute) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dy := (hours / 24) % 365; dy != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dy)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}
