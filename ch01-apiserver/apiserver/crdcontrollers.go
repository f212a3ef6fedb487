package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/storage"
)

// The controllers upstream's apiextensions-apiserver runs next to its
// handler, here one loop over this server's CRDs (a watch of their keys,
// one CRD reconciled at a time):
//
//   - naming (pkg/controller/status/naming_controller.go): the names a CRD
//     asks for are accepted unless another CRD of its group holds them
//     (condition NamesAccepted);
//   - establishing (pkg/controller/establish): a CRD whose names are
//     accepted becomes Established, and from then on its resources are
//     served (the registry, customresource.go);
//   - finalizer (pkg/controller/finalizer): a deleted CRD keeps the
//     customresourcecleanup finalizer until every custom object is gone
//     (condition Terminating).

type crdQueue struct {
	mu      sync.Mutex
	pending map[string]bool
	wake    chan struct{}
}

func (q *crdQueue) add(name string) {
	q.mu.Lock()
	q.pending[name] = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *crdQueue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]string, 0, len(q.pending))
	for n := range q.pending {
		out = append(out, n)
	}
	q.pending = map[string]bool{}
	return out
}

// startCRDControllers reconciles every stored CRD once (so the resources
// of established CRDs are served before the server says it is ready), then
// keeps watching them until ctx ends.
func (s *Server) startCRDControllers(ctx context.Context) error {
	q := &crdQueue{pending: map[string]bool{}, wake: make(chan struct{}, 1)}
	first, err := s.enqueueAllCRDs(ctx, q)
	if err != nil {
		return err
	}
	var rev atomic.Int64
	rev.Store(first)
	for _, name := range q.take() {
		s.reconcileCRD(ctx, q, name)
	}
	log := s.log.With("controller", "apiextensions")
	go func() {
		for ctx.Err() == nil {
			events, err := s.cfg.Storage.Watch(ctx, storagePrefix(crdResource, ""), rev.Load())
			if err != nil {
				log.Warn("watching CustomResourceDefinitions", "err", err)
				time.Sleep(time.Second)
				if r, err := s.enqueueAllCRDs(ctx, q); err == nil {
					rev.Store(r)
				}
				continue
			}
			go func() {
				for ev := range events {
					rev.Store(max(rev.Load(), ev.KV.ModRevision))
					q.add(ev.KV.Key[len(storagePrefix(crdResource, "")):])
				}
				q.add("") // the watch ended: relist
			}()
			for ctx.Err() == nil {
				select {
				case <-ctx.Done():
					return
				case <-q.wake:
				}
				relist := false
				for _, name := range q.take() {
					if name == "" {
						relist = true
						continue
					}
					s.reconcileCRD(ctx, q, name)
				}
				if relist {
					break
				}
			}
			if ctx.Err() == nil {
				if r, err := s.enqueueAllCRDs(ctx, q); err == nil {
					rev.Store(r)
				}
			}
		}
	}()
	return nil
}

func (s *Server) enqueueAllCRDs(ctx context.Context, q *crdQueue) (int64, error) {
	result, err := s.cfg.Storage.List(ctx, storagePrefix(crdResource, ""), storage.ListOptions{})
	if err != nil {
		return 0, err
	}
	for _, kv := range result.KVs {
		q.add(kv.Key[len(storagePrefix(crdResource, "")):])
	}
	// CRDs that disappeared while nobody watched stop being served.
	for _, res := range s.crds.Resources() {
		if cr := s.crds.Served(res); cr != nil {
			q.add(cr.CRD.Name)
		}
	}
	return result.Revision, nil
}

func (s *Server) getCRD(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	obj, err := s.getObject(ctx, crdResource, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*apiextensionsv1.CustomResourceDefinition), nil
}

func (s *Server) listCRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	items, _, err := s.list(ctx, crdResource, "", listOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(items))
	for _, it := range items {
		out = append(out, it.(*apiextensionsv1.CustomResourceDefinition))
	}
	return out, nil
}

// reconcileCRD runs the three controllers for one CRD.
func (s *Server) reconcileCRD(ctx context.Context, q *crdQueue, name string) {
	log := s.log.With("controller", "apiextensions", "crd", name)
	crd, err := s.getCRD(ctx, name)
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Status.Code == 404 {
			if len(s.crds.Resources()) > 0 {
				s.crds.Remove(name)
			}
			// Names it held may now be free for another CRD of its group.
			if all, err := s.listCRDs(ctx); err == nil {
				for _, c := range all {
					if !apiextensionsv1.IsCRDConditionTrue(c, apiextensionsv1.NamesAccepted) {
						q.add(c.Name)
					}
				}
			}
			return
		}
		log.Warn("reading the CustomResourceDefinition", "err", err)
		time.AfterFunc(time.Second, func() { q.add(name) })
		return
	}
	if crd.DeletionTimestamp != nil {
		s.finalizeCRD(ctx, q, crd, log)
		return
	}
	all, err := s.listCRDs(ctx)
	if err != nil {
		time.AfterFunc(time.Second, func() { q.add(name) })
		return
	}
	want := *crd
	want.Status = crd.Status
	want.Status.Conditions = append([]apiextensionsv1.CustomResourceDefinitionCondition(nil), crd.Status.Conditions...)
	names, accepted := calculateNames(crd, all)
	want.Status.AcceptedNames = names.AcceptedNames
	apiextensionsv1.SetCRDCondition(&want, accepted)
	established := apiextensionsv1.IsCRDConditionTrue(crd, apiextensionsv1.Established)
	switch {
	case established:
	case accepted.Status == apiextensionsv1.ConditionTrue:
		apiextensionsv1.SetCRDCondition(&want, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
			Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"})
	default:
		apiextensionsv1.SetCRDCondition(&want, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
			Status: apiextensionsv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted"})
	}
	if c := apiextensions.APIApprovalCondition(crd); c != nil {
		apiextensionsv1.SetCRDCondition(&want, *c) // upstream's apiapproval controller
	}
	// Serve the resources before the status says Established: a client
	// that waits for the condition (kubectl wait) may ask at once.
	if apiextensionsv1.IsCRDConditionTrue(&want, apiextensionsv1.Established) {
		s.crds.Set(&want)
	}
	if changed(crd.Status, want.Status) {
		if crd, err = s.writeCRDStatus(ctx, crd.Name, want.Status); err != nil {
			log.Warn("updating the CustomResourceDefinition's status", "err", err)
			time.AfterFunc(time.Second, func() { q.add(name) })
			return
		}
		log.Info("status updated", "namesAccepted", accepted.Status, "established", apiextensionsv1.IsCRDConditionTrue(crd, apiextensionsv1.Established))
		// Another CRD of the group may have been waiting for names this one does not take.
		for _, c := range all {
			if c.Name != crd.Name && c.Spec.Group == crd.Spec.Group {
				q.add(c.Name)
			}
		}
	}
	if apiextensionsv1.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		s.crds.Set(crd)
	} else {
		s.crds.Remove(crd.Name)
	}
}

func changed(a, b apiextensionsv1.CustomResourceDefinitionStatus) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) != string(y)
}

// writeCRDStatus writes status through /status, as the controllers' client does upstream.
func (s *Server) writeCRDStatus(ctx context.Context, name string, status apiextensionsv1.CustomResourceDefinitionStatus) (*apiextensionsv1.CustomResourceDefinition, error) {
	q := s.selfRequest(ctx, crdResource, "update", "", name)
	q.info.Subresource = "status"
	obj, _, err := s.update(ctx, q, name, "status", func(old metav1.Object) (metav1.Object, error) {
		crd := old.(*apiextensionsv1.CustomResourceDefinition)
		crd.Status = status
		crd.ResourceVersion = ""
		return crd, nil
	}, false)
	if err != nil {
		return nil, err
	}
	return obj.(*apiextensionsv1.CustomResourceDefinition), nil
}

type namesResult struct {
	AcceptedNames apiextensionsv1.CustomResourceDefinitionNames
}

// calculateNames is the naming controller's calculateNamesAndConditions:
// each requested name is accepted unless another CRD of the group has
// accepted it; a conflicting name keeps its previously accepted value.
func calculateNames(crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition) (namesResult, apiextensionsv1.CustomResourceDefinitionCondition) {
	used := map[string]map[string]bool{"plural": {}, "singular": {}, "short": {}, "kind": {}, "list": {}}
	for _, other := range all {
		if other.Name == crd.Name || other.Spec.Group != crd.Spec.Group {
			continue
		}
		n := other.Status.AcceptedNames
		used["plural"][n.Plural] = true
		used["singular"][n.Singular] = true
		used["kind"][n.Kind] = true
		used["list"][n.ListKind] = true
		for _, sn := range n.ShortNames {
			used["short"][sn] = true
		}
	}
	req := crd.Spec.Names
	out := crd.Status.AcceptedNames
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted,
		Status: apiextensionsv1.ConditionTrue, Reason: "NoConflicts", Message: "no conflicts found"}
	conflict := func(reason, name string) {
		if cond.Status == apiextensionsv1.ConditionTrue {
			cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, fmt.Sprintf("%q is already in use", name)
		}
	}
	if used["plural"][req.Plural] || used["singular"][req.Plural] || used["short"][req.Plural] {
		conflict("PluralConflict", req.Plural)
	} else {
		out.Plural = req.Plural
	}
	if used["plural"][req.Singular] || used["singular"][req.Singular] || used["short"][req.Singular] {
		conflict("SingularConflict", req.Singular)
	} else {
		out.Singular = req.Singular
	}
	shortOK := true
	for _, sn := range req.ShortNames {
		if used["plural"][sn] || used["singular"][sn] || used["short"][sn] {
			conflict("ShortNamesConflict", sn)
			shortOK = false
		}
	}
	if shortOK {
		out.ShortNames = req.ShortNames
	}
	if used["kind"][req.Kind] || used["list"][req.Kind] {
		conflict("KindConflict", req.Kind)
	} else {
		out.Kind = req.Kind
	}
	if used["kind"][req.ListKind] || used["list"][req.ListKind] {
		conflict("ListKindConflict", req.ListKind)
	} else {
		out.ListKind = req.ListKind
	}
	out.Categories = req.Categories
	return namesResult{AcceptedNames: out}, cond
}

// finalizeCRD is the finalizer controller: delete every custom object,
// then remove the finalizer (the CRD goes with it).
func (s *Server) finalizeCRD(ctx context.Context, q *crdQueue, crd *apiextensionsv1.CustomResourceDefinition, log interface {
	Info(string, ...any)
	Warn(string, ...any)
}) {
	hasFinalizer := false
	for _, f := range crd.Finalizers {
		hasFinalizer = hasFinalizer || f == apiextensionsv1.CustomResourceCleanupFinalizer
	}
	if !hasFinalizer {
		return
	}
	setTerminating := func(reason, message string) {
		st := crd.Status
		st.Conditions = append([]apiextensionsv1.CustomResourceDefinitionCondition(nil), crd.Status.Conditions...)
		tmp := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: crd.ObjectMeta, Status: st}
		apiextensionsv1.SetCRDCondition(tmp, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating,
			Status: apiextensionsv1.ConditionTrue, Reason: reason, Message: message})
		if changed(crd.Status, tmp.Status) {
			if updated, err := s.writeCRDStatus(ctx, crd.Name, tmp.Status); err == nil {
				crd = updated
			}
		}
	}
	setTerminating("InstanceDeletionInProgress", "CustomResource deletion is in progress")
	if apiextensionsv1.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		s.crds.Set(crd) // served while terminating: get, list, delete; creates refused
	}
	res := storageResource(crd)
	remaining, err := s.deleteCustomObjects(ctx, res)
	if err != nil {
		setTerminating("InstanceDeletionFailed", fmt.Sprintf("could not issue all deletes: %v", err))
		time.AfterFunc(2*time.Second, func() { q.add(crd.Name) })
		return
	}
	if remaining > 0 {
		// Objects held by finalizers of their own: upstream polls for a
		// minute, then says so and starts over.
		if time.Since(crd.DeletionTimestamp.Time) > time.Minute {
			setTerminating("InstanceDeletionCheck", "could not confirm zero CustomResources remaining: timed out waiting for the condition")
		}
		time.AfterFunc(2*time.Second, func() { q.add(crd.Name) })
		return
	}
	setTerminating("InstanceDeletionCompleted", "removed all instances")
	s.crds.Remove(crd.Name)
	uq := s.selfRequest(ctx, crdResource, "update", "", crd.Name)
	_, _, err = s.update(ctx, uq, crd.Name, "", func(old metav1.Object) (metav1.Object, error) {
		c := old.(*apiextensionsv1.CustomResourceDefinition)
		c.Finalizers = removeString(c.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
		c.ResourceVersion = ""
		return c, nil
	}, false)
	if err != nil {
		log.Warn("removing the cleanup finalizer", "err", err)
		time.AfterFunc(time.Second, func() { q.add(crd.Name) })
		return
	}
	log.Info("custom resources deleted, finalizer removed")
}

// storageResource is a resource for the CRD's stored objects, served or not.
func storageResource(crd *apiextensionsv1.CustomResourceDefinition) *scheme.Resource {
	c := *crd
	c.Spec.Versions = append([]apiextensionsv1.CustomResourceDefinitionVersion(nil), crd.Spec.Versions...)
	for i := range c.Spec.Versions {
		c.Spec.Versions[i].Served = c.Spec.Versions[i].Storage
	}
	served := apiextensions.BuildServed(&c)
	if len(served) == 0 {
		return nil
	}
	return served[0].Resource
}

// deleteCustomObjects deletes every stored object of res and returns how
// many remain (those held by finalizers of their own).
func (s *Server) deleteCustomObjects(ctx context.Context, res *scheme.Resource) (int, error) {
	if res == nil {
		return 0, nil
	}
	items, _, err := s.list(ctx, res, "", listOptions{})
	if err != nil {
		return 0, err
	}
	remaining := 0
	for _, it := range items {
		m := it.GetObjectMeta()
		if m.DeletionTimestamp != nil {
			remaining++
			continue
		}
		dq := s.selfRequest(ctx, res, "delete", m.Namespace, m.Name)
		_, gone, err := s.delete(ctx, dq, m.Namespace, m.Name, &metav1.DeleteOptions{})
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) && se.Status.Code == 404 {
				continue
			}
			return 0, err
		}
		if !gone {
			remaining++
		}
	}
	return remaining, nil
}
