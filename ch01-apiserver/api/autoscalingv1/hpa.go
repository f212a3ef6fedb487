package autoscalingv1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// HorizontalPodAutoscaler is the configuration of a horizontal pod autoscaler.
type HorizontalPodAutoscaler struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the autoscaler.
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current information about the autoscaler.
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// HorizontalPodAutoscalerList is a list of HorizontalPodAutoscalers.
type HorizontalPodAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of HorizontalPodAutoscalers.
	Items []HorizontalPodAutoscaler `json:"items" protobuf:"bytes,2,rep,name=items"`
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

// HorizontalPodAutoscalerSpec is the specification of a horizontal pod autoscaler.
type HorizontalPodAutoscalerSpec struct {
	// ScaleTargetRef points to the resource to scale.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// MinReplicas is the lower limit of the replica count (default 1).
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	// MaxReplicas is the upper limit of the replica count.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// TargetCPUUtilizationPercentage is the target average CPU utilization, in percent of the requests.
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty" protobuf:"varint,4,opt,name=targetCPUUtilizationPercentage"`
}

// HorizontalPodAutoscalerStatus is the current status of a horizontal pod autoscaler.
type HorizontalPodAutoscalerStatus struct {
	// ObservedGeneration is the most recent generation observed by the autoscaler.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// LastScaleTime is when the autoscaler last scaled the target.
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	// CurrentReplicas is the current number of pods of the target.
	CurrentReplicas int32 `json:"currentReplicas" protobuf:"varint,3,opt,name=currentReplicas"`
	// DesiredReplicas is the number of pods the autoscaler last computed.
	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// CurrentCPUUtilizationPercentage is the current average CPU utilization, in percent of the requests.
	CurrentCPUUtilizationPercentage *int32 `json:"currentCPUUtilizationPercentage,omitempty" protobuf:"varint,5,opt,name=currentCPUUtilizationPercentage"`
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

// MetricSpec is one metric to scale on, in the v1 (v2beta1) shape used by
// the metrics annotation.
type MetricSpec struct {
	// Type is the source of the metric.
	Type MetricSourceType `json:"type" protobuf:"bytes,1,name=type"`
	// Object is a metric describing a single Kubernetes object.
	Object *ObjectMetricSource `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	// Pods is a metric averaged over the pods of the target.
	Pods *PodsMetricSource `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	// Resource is a resource metric of the pods of the target.
	Resource *ResourceMetricSource `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	// ContainerResource is a resource metric of one container of the pods of the target.
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	// External is a metric not associated with any Kubernetes object.
	External *ExternalMetricSource `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// ObjectMetricSource is a metric describing a Kubernetes object.
type ObjectMetricSource struct {
	// Target is the described object.
	Target CrossVersionObjectReference `json:"target" protobuf:"bytes,1,name=target"`
	// MetricName is the name of the metric.
	MetricName string `json:"metricName" protobuf:"bytes,2,name=metricName"`
	// TargetValue is the target value of the metric.
	TargetValue resource.Quantity `json:"targetValue" protobuf:"bytes,3,name=targetValue"`
	// Selector narrows the metric down by labels.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,name=selector"`
	// AverageValue is the target value of the average of the metric across all pods.
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,5,name=averageValue"`
}

// PodsMetricSource is a metric averaged across the pods of the target.
type PodsMetricSource struct {
	// MetricName is the name of the metric.
	MetricName string `json:"metricName" protobuf:"bytes,1,name=metricName"`
	// TargetAverageValue is the target average value of the metric.
	TargetAverageValue resource.Quantity `json:"targetAverageValue" protobuf:"bytes,2,name=targetAverageValue"`
	// Selector narrows the metric down by labels.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,name=selector"`
}

// ResourceMetricSource is a resource metric of the pods of the target.
type ResourceMetricSource struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// TargetAverageUtilization is the target average, in percent of the requests.
	TargetAverageUtilization *int32 `json:"targetAverageUtilization,omitempty" protobuf:"varint,2,opt,name=targetAverageUtilization"`
	// TargetAverageValue is the target average value.
	TargetAverageValue *resource.Quantity `json:"targetAverageValue,omitempty" protobuf:"bytes,3,opt,name=targetAverageValue"`
}

// ContainerResourceMetricSource is a resource metric of one container of the pods of the target.
type ContainerResourceMetricSource struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// TargetAverageUtilization is the target average, in percent of the requests.
	TargetAverageUtilization *int32 `json:"targetAverageUtilization,omitempty" protobuf:"varint,2,opt,name=targetAverageUtilization"`
	// TargetAverageValue is the target average value.
	TargetAverageValue *resource.Quantity `json:"targetAverageValue,omitempty" protobuf:"bytes,3,opt,name=targetAverageValue"`
	// Container is the name of the container in the pods.
	Container string `json:"container" protobuf:"bytes,5,opt,name=container"`
}

// ExternalMetricSource is a global metric from outside the cluster.
type ExternalMetricSource struct {
	// MetricName is the name of the metric.
	MetricName string `json:"metricName" protobuf:"bytes,1,name=metricName"`
	// MetricSelector narrows the metric down by labels.
	MetricSelector *metav1.LabelSelector `json:"metricSelector,omitempty" protobuf:"bytes,2,opt,name=metricSelector"`
	// TargetValue is the target value of the metric.
	TargetValue *resource.Quantity `json:"targetValue,omitempty" protobuf:"bytes,3,opt,name=targetValue"`
	// TargetAverageValue is the target average value of the metric.
	TargetAverageValue *resource.Quantity `json:"targetAverageValue,omitempty" protobuf:"bytes,4,opt,name=targetAverageValue"`
}

// MetricStatus is the last read state of one metric, in the v1 shape.
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

// HorizontalPodAutoscalerConditionType is a condition of an autoscaler.
type HorizontalPodAutoscalerConditionType string

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

// ObjectMetricStatus is the current value of an object metric.
type ObjectMetricStatus struct {
	// Target is the described object.
	Target CrossVersionObjectReference `json:"target" protobuf:"bytes,1,name=target"`
	// MetricName is the name of the metric.
	MetricName string `json:"metricName" protobuf:"bytes,2,name=metricName"`
	// CurrentValue is the current value of the metric.
	CurrentValue resource.Quantity `json:"currentValue" protobuf:"bytes,3,name=currentValue"`
	// Selector narrows the metric down by labels.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,name=selector"`
	// AverageValue is the current average of the metric across all pods.
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,5,name=averageValue"`
}

// PodsMetricStatus is the current value of a pods metric.
type PodsMetricStatus struct {
	// MetricName is the name of the metric.
	MetricName string `json:"metricName" protobuf:"bytes,1,name=metricName"`
	// CurrentAverageValue is the current average value of the metric.
	CurrentAverageValue resource.Quantity `json:"currentAverageValue" protobuf:"bytes,2,name=currentAverageValue"`
	// Selector narrows the metric down by labels.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,name=selector"`
}

// ResourceMetricStatus is the current value of a resource metric.
type ResourceMetricStatus struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// CurrentAverageUtilization is the current average, in percent of the requests.
	CurrentAverageUtilization *int32 `json:"currentAverageUtilization,omitempty" protobuf:"bytes,2,opt,name=currentAverageUtilization"`
	// CurrentAverageValue is the current average value.
	CurrentAverageValue resource.Quantity `json:"currentAverageValue" protobuf:"bytes,3,name=currentAverageValue"`
}

// ContainerResourceMetricStatus is the current value of a container resource metric.
type ContainerResourceMetricStatus struct {
	// Name is the name of the resource.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	// CurrentAverageUtilization is the current average, in percent of the requests.
	CurrentAverageUtilization *int32 `json:"currentAverageUtilization,omitempty" protobuf:"bytes,2,opt,name=currentAverageUtilization"`
	// CurrentAverageValue is the current average value.
	CurrentAverageValue resource.Quantity `json:"currentAverageValue" protobuf:"bytes,3,name=currentAverageValue"`
	// Container is the name of the container in the pods.
	Container string `json:"container" protobuf:"bytes,4,opt,name=container"`
}

// ExternalMetricStatus is the current value of an external metric.
type ExternalMetricStatus struct {
	// MetricName is the name of the metric.
	MetricName string `json:"metricName" protobuf:"bytes,1,name=metricName"`
	// MetricSelector narrows the metric down by labels.
	MetricSelector *metav1.LabelSelector `json:"metricSelector,omitempty" protobuf:"bytes,2,opt,name=metricSelector"`
	// CurrentValue is the current value of the metric.
	CurrentValue resource.Quantity `json:"currentValue" protobuf:"bytes,3,name=currentValue"`
	// CurrentAverageValue is the current average value of the metric.
	CurrentAverageValue *resource.Quantity `json:"currentAverageValue,omitempty" protobuf:"bytes,4,opt,name=currentAverageValue"`
}
