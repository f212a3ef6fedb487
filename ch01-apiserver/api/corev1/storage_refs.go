package corev1

// The core/v1 types storage.k8s.io/v1 refers to that nothing in core/v1 used
// before: a StorageClass's allowedTopologies.

// TopologySelectorTerm is a set of topology label requirements, all of which must match (a subset of NodeSelectorTerm).
type TopologySelectorTerm struct {
	// A list of topology selector requirements by labels.
	MatchLabelExpressions []TopologySelectorLabelRequirement `json:"matchLabelExpressions,omitempty" protobuf:"bytes,1,rep,name=matchLabelExpressions"`
}

// TopologySelectorLabelRequirement is a selector that matches a label key against a set of values.
type TopologySelectorLabelRequirement struct {
	// The label key that the selector applies to.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// An array of string values. One value must match the label to be selected. Each entry in Values is ORed.
	Values []string `json:"values" protobuf:"bytes,2,rep,name=values"`
}
