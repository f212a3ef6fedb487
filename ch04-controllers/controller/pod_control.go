package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/record"
)

// Event reasons of the pod-creating controllers. Upstream: the same names
// in controller_utils.go.
const (
	FailedCreatePodReason     = "FailedCreate"
	SuccessfulCreatePodReason = "SuccessfulCreate"
	FailedDeletePodReason     = "FailedDelete"
	SuccessfulDeletePodReason = "SuccessfulDelete"
)

// NewControllerRef is the ownerReference a controller puts on what it
// creates: controller=true (only one controller per object) and
// blockOwnerDeletion=true (foreground deletion of the owner waits for it).
func NewControllerRef(owner *metav1.ObjectMeta, apiVersion, kind string) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: owner.Name, UID: owner.UID,
		Controller: &t, BlockOwnerDeletion: &t}
}

// GetPodFromTemplate builds the pod a controller creates from its template:
// the template's labels, annotations, finalizers and spec, the name
// generated from "<owner>-", and controllerRef as its owner.
func GetPodFromTemplate(template *corev1.PodTemplateSpec, parent *metav1.ObjectMeta, controllerRef *metav1.OwnerReference) (*corev1.Pod, error) {
	t := metav1.DeepCopy(template) // the pod must not share maps with the template
	// The apiserver adds 5 random characters (and cuts a long prefix).
	prefix := parent.Name + "-"
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    parent.Namespace,
			GenerateName: prefix,
			Labels:       maps.Clone(t.Labels),
			Annotations:  maps.Clone(t.Annotations),
			Finalizers:   slices.Clone(t.Finalizers),
		},
		Spec: t.Spec,
	}
	if controllerRef != nil {
		pod.OwnerReferences = append(pod.OwnerReferences, *controllerRef)
	}
	if len(pod.Labels) == 0 {
		return nil, fmt.Errorf("unable to create pods, no labels")
	}
	return pod, nil
}

// PodControl creates and deletes a controller's pods and records the
// SuccessfulCreate/FailedCreate and SuccessfulDelete/FailedDelete events on
// the controller object. Upstream: controller.RealPodControl.
type PodControl struct {
	Client   *rest.Client
	Recorder *record.Recorder
}

// CreatePods creates one pod from template in namespace, owned by
// controllerRef; the event goes to object (the ReplicaSet, Job ...).
func (pc PodControl) CreatePods(ctx context.Context, namespace string, template *corev1.PodTemplateSpec, object record.ObjectRef, controllerRef *metav1.OwnerReference) (*corev1.Pod, error) {
	pod, err := GetPodFromTemplate(template, &metav1.ObjectMeta{Name: object.Name, Namespace: namespace}, controllerRef)
	if err != nil {
		return nil, err
	}
	created, err := rest.Create(ctx, pc.Client, pod)
	if err != nil {
		// A namespace being deleted refuses creations: not worth an event.
		if !rest.IsForbidden(err) || !IsNamespaceTerminating(err) {
			pc.Recorder.Eventf(object, corev1.EventTypeWarning, FailedCreatePodReason, "Error creating: %v", err)
		}
		return nil, err
	}
	pc.Recorder.Eventf(object, corev1.EventTypeNormal, SuccessfulCreatePodReason, "Created pod: %v", created.Name)
	return created, nil
}

// DeletePod deletes the pod namespace/name of object.
func (pc PodControl) DeletePod(ctx context.Context, namespace, name string, object record.ObjectRef) error {
	if err := rest.Delete[corev1.Pod](ctx, pc.Client, namespace, name, nil); err != nil {
		if rest.IsNotFound(err) {
			return err // already gone: no event
		}
		pc.Recorder.Eventf(object, corev1.EventTypeWarning, FailedDeletePodReason, "Error deleting: %v", err)
		return fmt.Errorf("unable to delete pods: %w", err)
	}
	pc.Recorder.Eventf(object, corev1.EventTypeNormal, SuccessfulDeletePodReason, "Deleted pod: %v", name)
	return nil
}

// IsNamespaceTerminating: the apiserver refused a creation because the
// namespace is being deleted (a StatusCause of type NamespaceTerminating).
func IsNamespaceTerminating(err error) bool {
	se, ok := err.(*rest.StatusError)
	return ok && se.ErrStatus.Details != nil && se.ErrStatus.Details.Causes != nil &&
		slices.ContainsFunc(se.ErrStatus.Details.Causes, func(c metav1.StatusCause) bool { return c.Type == "NamespaceTerminating" })
}
