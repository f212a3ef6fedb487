// Package autoscalingv2 holds autoscaling/v2 HorizontalPodAutoscaler: the
// replica count of a scalable resource (a Deployment, a StatefulSet, ...)
// kept between bounds from observed metrics. It is the stored version of
// HorizontalPodAutoscalers; autoscaling/v1 is converted to and from it.
//
// Upstream: k8s.io/api/autoscaling/v2.
package autoscalingv2

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// HorizontalPodAutoscaler automatically manages the replica count of any
// resource implementing the scale subresource.
type HorizontalPodAutoscaler struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the autoscaler.
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current information about the autoscaler.
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// HorizontalPodAutoscalerSpec describes the desired functionality of the autoscaler.
type HorizontalPodAutoscalerSpec struct {
	// ScaleTargetRef points to the resource to scale.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// MinReplicas is the lower limit of the replica count (default 1).
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	// MaxReplicas is the upper limit of the replica count.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// Metrics are the metrics the desired replica count is computed from (default: 80% average CPU utilization).
	Metrics []MetricSpec `json:"metrics,omitempty" protobuf:"bytes,4,rep,name=metrics"`
	// Behavior configures the scaling behavior up and down.
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty" protobuf:"bytes,5,opt,name=behavior"`
}

// CrossVersionObjectReference identifies the referred resource.
type CrossVersionObjectReference struct {
	// Kind is the kind of the referent.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// Name is the name of the referent.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// APIVersion is the API version of the referent.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
}

// MetricSpec is one metric to scale on; exactly one source is set, the one type names.
type MetricSpec struct {
	// Type is the source of the metric: "ContainerResource", "External", "Object", "Pods" or "Resource".
	Type MetricSourceType `json:"type" protobuf:"bytes,1,name=type"`
	// Object is a metric describing a single Kubernetes object.
	Object *ObjectMetricSource `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	// Pods is a metric averaged over the pods of the target.
	Pods *PodsMetricSource `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	// Resource is a resource metric (cpu, memory) of the pods of the target.
	Resource *ResourceMetricSource `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	// ContainerResource is a resource metric of one container of the pods of the target.
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	// External is a metric not associated with any Kubernetes object.
	External *ExternalMetricSource `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// HorizontalPodAutoscalerBehavior configures scaling up and down separately.
type HorizontalPodAutoscalerBehavior struct {
	// ScaleUp is the scaling policy for scaling up.
	ScaleUp *HPAScalingRules `json:"scaleUp,omitempty" protobuf:"bytes,1,opt,name=scaleUp"`
	// ScaleDown is the scaling policy for scaling down.
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty" protobuf:"bytes,2,opt,name=scaleDown"`
}

// ScalingPolicySelect says which policy wins: Max, Min or Disabled.
type ScalingPolicySelect string

// The policy selections.
const (
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	MinChangePolicySelect ScalingPolicySelect = "Min"
	DisabledPolicySelect  ScalingPolicySelect = "Disabled"
)

// HPAScalingRules configures the scaling behavior in one direction.
type HPAScalingRules struct {
	// StabilizationWindowSeconds is how many seconds of past recommendations are considered.
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty" protobuf:"varint,3,opt,name=stabilizationWindowSeconds"`
	// SelectPolicy says which policy is used; Max by default.
	SelectPolicy *ScalingPolicySelect `json:"selectPolicy,omitempty" protobuf:"bytes,1,opt,name=selectPolicy"`
	// Policies are the possible scaling policies.
	Policies []HPAScalingPolicy `json:"policies,omitempty" protobuf:"bytes,2,rep,name=policies"`
	// Tolerance is the relative difference from the target within which no scaling happens.
	Tolerance *resource.Quantity `json:"tolerance,omitempty" protobuf:"bytes,4,opt,name=tolerance"`
}

// HPAScalingPolicyType is "Pods" or "Percent".
type HPAScalingPolicyType string

// The scaling policy types.
const (
	PodsScalingPolicy    HPAScalingPolicyType = "Pods"
	PercentScalingPolicy HPAScalingPolicyType = "Percent"
)

// HPAScalingPolicy is a single change allowed within a period.
type HPAScalingPolicy struct {
	// Type is the kind of change: Pods or Percent.
	Type HPAScalingPolicyType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=HPAScalingPolicyType"`
	// Value is the amount of change permitted (positive).
	Value int32 `json:"value" protobuf:"varint,2,opt,name=value"`
	// PeriodSeconds is the window the policy holds for (1 to 1800).
	PeriodSeconds int32 `json:"periodSeconds" protobuf:"varint,3,opt,name=periodSeconds"`
}

// MetricSourceType is the type of a metric source.
type MetricSourceType string

// The metric source types.
const (
	ObjectMetricSourceType            MetricSourceType = "Object"
	PodsMetricSourceType              MetricSourceType = "Pods"
	ResourceMetricSourceType          MetricSourceType = "Resource"
	ContainerResourceMetricSourceType MetricSourceType = "ContainerResource"
	ExternalMetricSourceType          MetricSourceType = "External"
)

// ObjectMetricSource is a metric describing a Kubernetes object.
type ObjectMetricSource struct {
	// DescribedObject is the object the metric describes.
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,1,name=describedObject"`
	// Target is the target value of the metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
	// Metric identifies the metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,3,name=metric"`
}

// PodsMetricSource is a metric averaged across the pods of the target.
type PodsMetricSource struct {
	// Metric identifies the metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	// Target is the target value of the metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

// ResourceMetricSource is a resource metric of the pods of the target.
type ResourceMetricSource struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// Target is the target value of the metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

// ContainerResourceMetricSource is a resource metric of one container of the pods of the target.
type ContainerResourceMetricSource struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// Target is the target value of the metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
	// Container is the name of the container in the pods.
	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricSource is a global metric from outside the cluster.
type ExternalMetricSource struct {
	// Metric identifies the metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	// Target is the target value of the metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

// MetricIdentifier names a metric and selects its series.
type MetricIdentifier struct {
	// Name is the name of the metric.
	Name string `json:"name" protobuf:"bytes,1,name=name"`
	// Selector narrows the metric down by labels.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,2,name=selector"`
}

// MetricTarget is the target value, average value or average utilization of a metric.
type MetricTarget struct {
	// Type is Utilization, Value or AverageValue.
	Type MetricTargetType `json:"type" protobuf:"bytes,1,name=type"`
	// Value is the target value of the metric.
	Value *resource.Quantity `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// AverageValue is the target value of the average of the metric across all pods.
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,3,opt,name=averageValue"`
	// AverageUtilization is the target average, in percent of the pods' requests.
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"bytes,4,opt,name=averageUtilization"`
}

// MetricTargetType is the type of a metric target.
type MetricTargetType string

// The metric target types.
const (
	UtilizationMetricType  MetricTargetType = "Utilization"
	ValueMetricType        MetricTargetType = "Value"
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// HorizontalPodAutoscalerStatus describes the current status of an autoscaler.
type HorizontalPodAutoscalerStatus struct {
	// ObservedGeneration is the most recent generation observed by the autoscaler.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// LastScaleTime is when the autoscaler last scaled the target.
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	// CurrentReplicas is the current number of pods of the target.
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,3,opt,name=currentReplicas"`
	// DesiredReplicas is the number of pods the autoscaler last computed.
	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// CurrentMetrics is the last read state of the metrics.
	CurrentMetrics []MetricStatus `json:"currentMetrics" protobuf:"bytes,5,rep,name=currentMetrics"`
	// Conditions are the conditions of the autoscaler.
	Conditions []HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// HorizontalPodAutoscalerConditionType is a condition of an autoscaler.
type HorizontalPodAutoscalerConditionType string

// The conditions of an autoscaler.
const (
	ScalingActive  HorizontalPodAutoscalerConditionType = "ScalingActive"
	AbleToScale    HorizontalPodAutoscalerConditionType = "AbleToScale"
	ScalingLimited HorizontalPodAutoscalerConditionType = "ScalingLimited"
)

// HorizontalPodAutoscalerCondition describes the state of an autoscaler at a point in time.
type HorizontalPodAutoscalerCondition struct {
	// Type is the condition type.
	Type HorizontalPodAutoscalerConditionType `json:"type" protobuf:"bytes,1,name=type"`
	// Status is True, False or Unknown.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,name=status"`
	// LastTransitionTime is when the condition last changed status.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is the reason for the last transition, CamelCase.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// MetricStatus is the last read state of one metric.
type MetricStatus struct {
	// Type is the source of the metric.
	Type MetricSourceType `json:"type" protobuf:"bytes,1,name=type"`
	// Object is the state of an object metric.
	Object *ObjectMetricStatus `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	// Pods is the state of a pods metric.
	Pods *PodsMetricStatus `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	// Resource is the state of a resource metric.
	Resource *ResourceMetricStatus `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	// ContainerResource is the state of a container resource metric.
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	// External is the state of an external metric.
	External *ExternalMetricStatus `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// ObjectMetricStatus is the current value of an object metric.
type ObjectMetricStatus struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	// Current is the current value of the metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
	// DescribedObject is the object the metric describes.
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,3,name=describedObject"`
}

// PodsMetricStatus is the current value of a pods metric.
type PodsMetricStatus struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	// Current is the current value of the metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// ResourceMetricStatus is the current value of a resource metric.
type ResourceMetricStatus struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// Current is the current value of the metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// ContainerResourceMetricStatus is the current value of a container resource metric.
type ContainerResourceMetricStatus struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// Current is the current value of the metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
	// Container is the name of the container in the pods.
	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricStatus is the current value of an external metric.
type ExternalMetricStatus struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	// Current is the current value of the metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// MetricValueStatus holds the current value of a metric.
type MetricValueStatus struct {
	// Value is the current value of the metric.
	Value *resource.Quantity `json:"value,omitempty" protobuf:"bytes,1,opt,name=value"`
	// AverageValue is the current average of the metric across all pods.
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,2,opt,name=averageValue"`
	// AverageUtilization is the current average, in percent of the pods' requests.
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"bytes,3,opt,name=averageUtilization"`
}

// HorizontalPodAutoscalerList is a list of HorizontalPodAutoscalers.
type HorizontalPodAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of HorizontalPodAutoscalers.
	Items []HorizontalPodAutoscaler `json:"items" protobuf:"bytes,2,rep,name=items"`
}
