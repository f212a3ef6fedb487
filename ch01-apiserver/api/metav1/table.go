package metav1

import "encoding/json"

// Table is the server-side rendering of objects as rows and columns that
// kubectl get prints verbatim (Accept: application/json;as=Table;v=v1;g=meta.k8s.io).
type Table struct {
	TypeMeta          `json:",inline"`
	ListMeta          `json:"metadata"`
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	Rows              []TableRow              `json:"rows"`
}

// TableColumnDefinition describes one column. Priority 1 columns are the -o wide ones.
type TableColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// TableRow is one object: its cells and (by default) its PartialObjectMetadata.
type TableRow struct {
	Cells      []any               `json:"cells"`
	Conditions []TableRowCondition `json:"conditions,omitempty"`
	Object     json.RawMessage     `json:"object,omitempty"`
}

// TableRowCondition marks a row, e.g. Completed pods.
type TableRowCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// RowCompleted is the condition kubectl uses to hide finished pods unless --show-all.
const RowCompleted = "Completed"
