// Package autoscalingv1 holds autoscaling/v1: Scale, the body of the /scale
// subresource of Deployments, ReplicaSets and StatefulSets, and the first
// version of HorizontalPodAutoscaler (CPU utilization only; the fields of
// autoscaling/v2 ride along in annotations). HorizontalPodAutoscalers are
// stored as autoscaling/v2: conversion.go converts both ways.
//
// Upstream: k8s.io/api/autoscaling/v1 and the conversion functions of
// pkg/apis/autoscaling/v1.
package autoscalingv1

import "kubik/ch01-apiserver/api/metav1"

// Scale is the replica count of a scalable resource.
type Scale struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired scale.
	Spec ScaleSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current scale (read-only).
	Status ScaleStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ScaleSpec is the desired scale.
type ScaleSpec struct {
	// Replicas is the desired number of instances.
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
}

// ScaleStatus is the current scale.
type ScaleStatus struct {
	// Replicas is the actual number of instances.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	// Selector is the pods' label selector in string form, e.g. "app=nginx".
	Selector string `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}
