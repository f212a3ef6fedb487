// Package eventsv1 holds events.k8s.io/v1 Event, the newer shape of the
// core/v1 Event, and the conversion between the two.
//
// Upstream: k8s.io/api/events/v1 and kubernetes/pkg/apis/events/v1. Both
// groups serve the same objects: they are stored once, under /registry/events,
// and converted on the way in and out.
package eventsv1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// Event is a report of an event somewhere in the cluster.
type Event struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// EventTime is when the event was first observed.
	EventTime metav1.MicroTime `json:"eventTime" protobuf:"bytes,2,opt,name=eventTime"`
	// Series describes a series of repeated events; nil for a singleton.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,3,opt,name=series"`
	// ReportingController names the controller that emitted the event, e.g. "kubernetes.io/kubelet".
	ReportingController string `json:"reportingController,omitempty" protobuf:"bytes,4,opt,name=reportingController"`
	// ReportingInstance identifies the controller instance, e.g. "kubelet-node-1".
	ReportingInstance string `json:"reportingInstance,omitempty" protobuf:"bytes,5,opt,name=reportingInstance"`
	// Action is what was taken or failed regarding the object.
	Action string `json:"action,omitempty" protobuf:"bytes,6,name=action"`
	// Reason is why the action was taken.
	Reason string `json:"reason,omitempty" protobuf:"bytes,7,name=reason"`
	// Regarding is the object this event is about.
	Regarding corev1.ObjectReference `json:"regarding,omitempty" protobuf:"bytes,8,opt,name=regarding"`
	// Related is an optional secondary object.
	Related *corev1.ObjectReference `json:"related,omitempty" protobuf:"bytes,9,opt,name=related"`
	// Note is a human-readable description.
	Note string `json:"note,omitempty" protobuf:"bytes,10,opt,name=note"`
	// Type is "Normal" or "Warning".
	Type string `json:"type,omitempty" protobuf:"bytes,11,opt,name=type"`
	// DeprecatedSource is core/v1's source.
	DeprecatedSource corev1.EventSource `json:"deprecatedSource,omitempty" protobuf:"bytes,12,opt,name=deprecatedSource"`
	// DeprecatedFirstTimestamp is core/v1's firstTimestamp.
	DeprecatedFirstTimestamp metav1.Time `json:"deprecatedFirstTimestamp,omitempty" protobuf:"bytes,13,opt,name=deprecatedFirstTimestamp"`
	// DeprecatedLastTimestamp is core/v1's lastTimestamp.
	DeprecatedLastTimestamp metav1.Time `json:"deprecatedLastTimestamp,omitempty" protobuf:"bytes,14,opt,name=deprecatedLastTimestamp"`
	// DeprecatedCount is core/v1's count.
	DeprecatedCount int32 `json:"deprecatedCount,omitempty" protobuf:"varint,15,opt,name=deprecatedCount"`
}

// EventSeries is a series of repeated events.
type EventSeries struct {
	// Count is the number of occurrences up to the last heartbeat.
	Count int32 `json:"count" protobuf:"varint,1,opt,name=count"`
	// LastObservedTime is the time of the last occurrence.
	LastObservedTime metav1.MicroTime `json:"lastObservedTime" protobuf:"bytes,2,opt,name=lastObservedTime"`
}

// EventList is a list of Events.
type EventList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// The apiVersions of the two representations.
const (
	eventsAPIVersion = "events.k8s.io/v1"
	coreAPIVersion   = "v1"
)

// FromCore converts a core/v1 Event to events.k8s.io/v1, with upstream's
// field mapping: involvedObject→regarding, message→note,
// reportingComponent→reportingController, source→deprecatedSource,
// firstTimestamp/lastTimestamp/count→deprecated*. Metadata maps and slices
// are shared with e, as upstream's conversion shares them.
func FromCore(e *corev1.Event) *Event {
	out := &Event{
		TypeMeta:                 metav1.TypeMeta{APIVersion: eventsAPIVersion, Kind: "Event"},
		ObjectMeta:               e.ObjectMeta,
		EventTime:                e.EventTime,
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
		Action:                   e.Action,
		Reason:                   e.Reason,
		Regarding:                e.InvolvedObject,
		Related:                  e.Related,
		Note:                     e.Message,
		Type:                     e.Type,
		DeprecatedSource:         e.Source,
		DeprecatedFirstTimestamp: e.FirstTimestamp,
		DeprecatedLastTimestamp:  e.LastTimestamp,
		DeprecatedCount:          e.Count,
	}
	if e.Series != nil {
		out.Series = &EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}

// ToCore converts an events.k8s.io/v1 Event to core/v1, the inverse of FromCore.
func ToCore(e *Event) *corev1.Event {
	out := &corev1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: coreAPIVersion, Kind: "Event"},
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	if e.Series != nil {
		out.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}
