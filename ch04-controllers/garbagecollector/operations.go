package garbagecollector

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
)

// The requests of the collector, each on the object a node stands for,
// found by its apiVersion and kind. Upstream: operations.go.

func (gc *GarbageCollector) resourcePath(ref objectReference) (string, *scheme.Resource, error) {
	r, err := gc.restMapper().ResourceFor(ref.APIVersion, ref.Kind)
	if err != nil {
		return "", nil, err
	}
	ns := ref.Namespace
	if !r.Namespaced {
		ns = ""
	}
	return rest.ResourcePath(r, ns, ref.Name, ""), r, nil
}

// getObject reads the object's metadata live.
func (gc *GarbageCollector) getObject(ctx context.Context, ref objectReference) (*metav1.PartialObjectMetadata, error) {
	p, _, err := gc.resourcePath(ref)
	if err != nil {
		return nil, err
	}
	out := &metav1.PartialObjectMetadata{}
	if err := gc.client.Do(ctx, rest.Request{Method: http.MethodGet, Path: p}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// deleteObject deletes the object with propagationPolicy policy, on the
// precondition that it is still the object of this UID.
func (gc *GarbageCollector) deleteObject(ctx context.Context, ref objectReference, policy string) error {
	p, _, err := gc.resourcePath(ref)
	if err != nil {
		return err
	}
	uid := ref.UID
	body, err := json.Marshal(metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"},
		Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy})
	if err != nil {
		return err
	}
	err = gc.client.Do(ctx, rest.Request{Method: http.MethodDelete, Path: p, Body: body}, nil)
	if rest.IsNotFound(err) {
		return nil // gone already: its delete event will follow
	}
	return err
}

// patch sends a strategic merge patch to the object.
func (gc *GarbageCollector) patch(ctx context.Context, ref objectReference, patch []byte) error {
	p, _, err := gc.resourcePath(ref)
	if err != nil {
		return err
	}
	return gc.client.Do(ctx, rest.Request{Method: http.MethodPatch, Path: p,
		ContentType: string(rest.StrategicMergePatchType), Body: patch}, nil)
}

// removeFinalizer takes finalizer off the object: a JSON merge patch of the
// whole list, conditional on the resourceVersion read, retried on conflict.
func (gc *GarbageCollector) removeFinalizer(ctx context.Context, ref objectReference, finalizer string) error {
	p, _, err := gc.resourcePath(ref)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		obj, err := gc.getObject(ctx, ref)
		if rest.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if obj.UID != ref.UID || !slices.Contains(obj.Finalizers, finalizer) {
			return nil
		}
		remaining := slices.DeleteFunc(slices.Clone(obj.Finalizers), func(f string) bool { return f == finalizer })
		if remaining == nil {
			remaining = []string{}
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"finalizers": remaining, "resourceVersion": obj.ResourceVersion, "uid": obj.UID}})
		if err != nil {
			return err
		}
		err = gc.client.Do(ctx, rest.Request{Method: http.MethodPatch, Path: p,
			ContentType: string(rest.MergePatchType), Body: patch}, nil)
		if rest.IsConflict(err) && attempt < 5 {
			continue
		}
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	}
}
