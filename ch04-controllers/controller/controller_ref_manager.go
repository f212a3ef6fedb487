package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
)

// ControllerRefManager decides which objects of type T a controller owns:
// it claims them. Objects are matched by the controller's selector and tied
// to it by an ownerReference with controller=true (its controllerRef):
//
//	owned by us, selector matches       → ours
//	owned by us, selector no longer matches → release (remove our ownerReference)
//	owned by another controller         → not ours, never touched
//	orphan (no controllerRef), matches  → adopt (add our ownerReference)
//
// Adoption and release are strategic merge patches of
// metadata.ownerReferences, so they never overwrite anything else. A
// controller being deleted adopts nothing and releases nothing (the
// garbage collector is about to orphan or delete its objects).
//
// Upstream: pkg/controller/controller_ref_manager.go
// (BaseControllerRefManager.ClaimObject, PodControllerRefManager,
// ReplicaSetControllerRefManager).
type ControllerRefManager[T any, PT rest.Object[T]] struct {
	Client     *rest.Client
	Controller *metav1.ObjectMeta
	APIVersion string // of the controller: "apps/v1"
	Kind       string // of the controller: "ReplicaSet"
	Selector   selection.LabelSelector
	// CanAdoptFunc rechecks, once, that the controller is not being deleted
	// before the first adoption (the cache may be behind).
	CanAdoptFunc func(ctx context.Context) error
	// Finalizers are added with the ownerReference on adoption and removed
	// with it on release (the Job controller's job-tracking finalizer).
	Finalizers []string

	canAdoptOnce sync.Once
	canAdoptErr  error
}

// Claim returns the objects of objs the controller owns after adopting the
// matching orphans and releasing the owned ones that no longer match.
// Extra filters must also accept an object for it to be adopted or kept.
func (m *ControllerRefManager[T, PT]) Claim(ctx context.Context, objs []*T, filters ...func(*T) bool) ([]*T, error) {
	var claimed []*T
	var errs []error
	match := func(o *T) bool {
		if !m.Selector.Matches(PT(o).GetObjectMeta().Labels) {
			return false
		}
		for _, f := range filters {
			if !f(o) {
				return false
			}
		}
		return true
	}
	for _, o := range objs {
		ok, err := m.claimObject(ctx, o, match)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, o)
		}
	}
	if len(errs) > 0 {
		return claimed, fmt.Errorf("%v", errs)
	}
	return claimed, nil
}

func (m *ControllerRefManager[T, PT]) claimObject(ctx context.Context, o *T, match func(*T) bool) (bool, error) {
	meta := PT(o).GetObjectMeta()
	if ref := metav1.GetControllerOf(meta); ref != nil {
		if ref.UID != m.Controller.UID {
			return false, nil // owned by another controller
		}
		if match(o) {
			return true, nil
		}
		// Ours, but no longer selected: release it, unless we are being deleted.
		if m.Controller.DeletionTimestamp != nil {
			return false, nil
		}
		if err := m.release(ctx, meta); err != nil && !rest.IsNotFound(err) {
			return false, err
		}
		return false, nil
	}
	// An orphan: adopt it if it matches and nobody is being deleted.
	if m.Controller.DeletionTimestamp != nil || !match(o) || meta.DeletionTimestamp != nil ||
		(m.Controller.Namespace != "" && m.Controller.Namespace != meta.Namespace) {
		return false, nil
	}
	if err := m.adopt(ctx, meta); err != nil {
		if rest.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// patchMeta is the body of the adopt and release patches. metadata.uid
// makes the patch fail if the object was replaced by another of the same
// name meanwhile.
type patchMeta struct {
	Metadata struct {
		OwnerReferences          []any    `json:"ownerReferences"`
		UID                      string   `json:"uid"`
		Finalizers               []string `json:"finalizers,omitempty"`
		DeleteFinalizersFromList []string `json:"$deleteFromPrimitiveList/finalizers,omitempty"`
	} `json:"metadata"`
}

func (m *ControllerRefManager[T, PT]) adopt(ctx context.Context, meta *metav1.ObjectMeta) error {
	m.canAdoptOnce.Do(func() {
		if m.CanAdoptFunc != nil {
			m.canAdoptErr = m.CanAdoptFunc(ctx)
		}
	})
	if m.canAdoptErr != nil {
		return fmt.Errorf("can't adopt %s %v/%v (%v): %v", m.objectKind(), meta.Namespace, meta.Name, meta.UID, m.canAdoptErr)
	}
	var p patchMeta
	p.Metadata.UID = meta.UID
	p.Metadata.OwnerReferences = []any{NewControllerRef(m.Controller, m.APIVersion, m.Kind)}
	p.Metadata.Finalizers = m.Finalizers
	body, _ := json.Marshal(p)
	_, err := rest.Patch[T, PT](ctx, m.Client, meta.Namespace, meta.Name, rest.StrategicMergePatchType, body, "")
	return err
}

func (m *ControllerRefManager[T, PT]) release(ctx context.Context, meta *metav1.ObjectMeta) error {
	var p patchMeta
	p.Metadata.UID = meta.UID
	p.Metadata.OwnerReferences = []any{map[string]string{"$patch": "delete", "uid": m.Controller.UID}}
	p.Metadata.DeleteFinalizersFromList = m.Finalizers
	body, _ := json.Marshal(p)
	_, err := rest.Patch[T, PT](ctx, m.Client, meta.Namespace, meta.Name, rest.StrategicMergePatchType, body, "")
	if err != nil && (rest.IsNotFound(err) || rest.IsInvalid(err)) {
		return nil // gone, or no longer has our reference
	}
	return err
}

func (m *ControllerRefManager[T, PT]) objectKind() string {
	r, err := rest.ResourceFor[T]()
	if err != nil {
		return "object"
	}
	return r.Kind
}

// RecheckDeletionTimestamp is the usual CanAdoptFunc: it reads the
// controller afresh (get) and refuses adoption if it was replaced or is
// being deleted. Upstream: controller.RecheckDeletionTimestamp.
func RecheckDeletionTimestamp(get func(ctx context.Context) (*metav1.ObjectMeta, error), uid string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		fresh, err := get(ctx)
		if err != nil {
			return err
		}
		if fresh.UID != uid {
			return fmt.Errorf("original %v/%v is gone: got uid %v, wanted %v", fresh.Namespace, fresh.Name, fresh.UID, uid)
		}
		if fresh.DeletionTimestamp != nil {
			return fmt.Errorf("%v/%v has just been deleted at %v", fresh.Namespace, fresh.Name, fresh.DeletionTimestamp)
		}
		return nil
	}
}
