package apiserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/storage"
)

// This file is the generic registry: create, get, list, update and delete of
// any resource over storage.Interface. Upstream:
// k8s.io/apiserver/pkg/registry/generic/registry/store.go.

// storageError maps storage failures that are not the client's fault.
func storageError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, storage.ErrUnavailable) {
		return ErrTimeout(fmt.Sprintf("storage is unavailable: %v", err))
	}
	return ErrInternal(err)
}

// getObject reads one object (404 when missing).
func (s *Server) getObject(ctx context.Context, res *scheme.Resource, namespace, name string) (metav1.Object, error) {
	kv, err := s.cfg.Storage.Get(ctx, storageKey(res, namespace, name))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrNotFound(res.Group, res.Resource, res.GroupResource(), name)
	}
	if err != nil {
		return nil, storageError(err)
	}
	return decodeFromStorage(res, kv)
}

// listOptions are the query parameters of a list or watch.
type listOptions struct {
	Labels               selection.LabelSelector
	Fields               selection.FieldSelector
	Limit                int64
	Continue             string
	ResourceVersion      string
	ResourceVersionMatch string
	TimeoutSeconds       int64
	AllowBookmarks       bool
	SendInitialEvents    *bool
	// fieldSet, for custom resources, gives the fields a selector sees
	// (metadata.name, metadata.namespace, the CRD's selectableFields).
	fieldSet func(metav1.Object) map[string]string
}

func parseListOptions(q *request) (listOptions, error) {
	v := q.r.URL.Query()
	opts := listOptions{
		Continue:             v.Get("continue"),
		ResourceVersion:      v.Get("resourceVersion"),
		ResourceVersionMatch: v.Get("resourceVersionMatch"),
		AllowBookmarks:       queryBool(v["allowWatchBookmarks"]),
	}
	var err error
	if opts.Labels, err = selection.ParseLabelSelector(v.Get("labelSelector")); err != nil {
		return opts, ErrBadRequest(err.Error())
	}
	if opts.Fields, err = selection.ParseFieldSelector(v.Get("fieldSelector")); err != nil {
		return opts, ErrBadRequest(err.Error())
	}
	if q.custom != nil {
		if opts.fieldSet, err = customFieldSelector(q, &opts); err != nil {
			return opts, err
		}
	} else {
		if opts.Fields, err = selection.ConvertFieldSelector(q.res.GroupResource(), opts.Fields); err != nil {
			return opts, ErrBadRequest(err.Error())
		}
		if err := selection.ValidateFieldSelector(q.res.GroupResource(), opts.Fields); err != nil {
			return opts, ErrBadRequest(err.Error())
		}
	}
	if q.info.Name != "" { // a watch of one object: /watch/namespaces/ns/pods/name
		sel := "metadata.name=" + selection.EscapeValue(q.info.Name)
		if !opts.Fields.Empty() {
			sel = opts.Fields.String() + "," + sel
		}
		if opts.Fields, err = selection.ParseFieldSelector(sel); err != nil {
			return opts, ErrBadRequest(err.Error())
		}
	}
	if l := v.Get("limit"); l != "" {
		if opts.Limit, err = parseIntParam(l); err != nil {
			return opts, err
		}
		opts.Limit = max(opts.Limit, 0) // a negative limit is no limit, as upstream
	}
	if t := v.Get("timeoutSeconds"); t != "" {
		if opts.TimeoutSeconds, err = parseIntParam(t); err != nil {
			return opts, err
		}
	}
	if sie, ok := v["sendInitialEvents"]; ok {
		b := queryBool(sie)
		opts.SendInitialEvents = &b
	}
	if err := validateListOptions(q.info.Verb == "watch", &opts); err != nil {
		return opts, err
	}
	if opts.Continue != "" && opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		return opts, invalidListOptions("resourceVersion", opts.ResourceVersion, "specifying resource version is not allowed when using continue")
	}
	return opts, nil
}

func invalidListOptions(field, value, detail string) error {
	msg := fmt.Sprintf("%s: Forbidden: %s", field, detail)
	return ErrInvalid("meta.k8s.io", "ListOptions", "", []metav1.StatusCause{{Type: metav1.CauseTypeForbidden, Message: "Forbidden: " + detail, Field: field}}, msg)
}

// matches applies the label and field selectors to an object.
func (o *listOptions) matches(obj metav1.Object) bool {
	if !o.Labels.Matches(obj.GetObjectMeta().Labels) {
		return false
	}
	if o.Fields.Empty() {
		return true
	}
	if o.fieldSet != nil {
		return o.Fields.Matches(o.fieldSet(obj))
	}
	return o.Fields.Matches(selection.SelectableFields(obj))
}

// continueToken is the opaque "continue" of a paginated list: the revision
// the first page was read at and the last key returned, as upstream encodes it.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

func encodeContinue(rev int64, lastKey, prefix string) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rev, StartKey: strings.TrimPrefix(lastKey, prefix) + "\x00"})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(token, prefix string) (rev int64, startAfter string, err error) {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("invalid continue token: continue key is not valid: "+format, args...)
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", invalid("%v", err)
	}
	var t continueToken
	if err := json.Unmarshal(b, &t); err != nil {
		return 0, "", invalid("%v", err)
	}
	if t.APIVersion != "meta.k8s.io/v1" {
		return 0, "", invalid("server does not recognize this encoded version %s", t.APIVersion)
	}
	if t.ResourceVersion == 0 {
		return 0, "", invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if t.StartKey == "" {
		return 0, "", invalid("encoded start key empty (version meta.k8s.io/v1)")
	}
	// A client must not climb out of the listed prefix ("../secrets/...").
	key := "/" + strings.TrimPrefix(t.StartKey, "/")
	if path.Clean(key) != key {
		return 0, "", invalid("invalid start key: %s", t.StartKey)
	}
	return t.ResourceVersion, prefix + strings.TrimSuffix(key[1:], "\x00"), nil
}

// list reads a collection: the whole prefix (or one namespace), decoded and filtered.
func (s *Server) list(ctx context.Context, res *scheme.Resource, namespace string, opts listOptions) ([]metav1.Object, metav1.ListMeta, error) {
	var items []metav1.Object
	listMeta, err := s.listStored(ctx, res, namespace, opts, func(kv storage.KeyValue) (bool, error) {
		obj, err := decodeFromStorage(res, kv)
		if err != nil {
			return false, ErrInternal(err)
		}
		if !opts.matches(obj) {
			return false, nil
		}
		items = append(items, obj)
		return true, nil
	})
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	return items, listMeta, nil
}

// listStored reads a collection one storage page at a time and hands every
// stored object to keep, which reports whether the object is in the list (it
// passes the selectors). It stops after opts.Limit kept objects and returns
// the list's metadata: its resourceVersion and, for a partial list, the
// continue token.
func (s *Server) listStored(ctx context.Context, res *scheme.Resource, namespace string, opts listOptions,
	keep func(kv storage.KeyValue) (bool, error)) (metav1.ListMeta, error) {
	prefix := storagePrefix(res, namespace)
	sopts := storage.ListOptions{}
	if opts.Continue != "" {
		rev, start, err := decodeContinue(opts.Continue, prefix)
		if err != nil {
			return metav1.ListMeta{}, ErrBadRequest(err.Error())
		}
		sopts.Revision, sopts.StartAfter = rev, start
	} else if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		rv, err := parseRV(opts.ResourceVersion)
		if err != nil {
			return metav1.ListMeta{}, ErrBadRequest("invalid resource version: " + err.Error())
		}
		cur, err := s.cfg.Storage.CurrentRevision(ctx)
		if err != nil {
			return metav1.ListMeta{}, storageError(err)
		}
		if rv > cur {
			return metav1.ListMeta{}, ErrTooLargeResourceVersion(rv, cur)
		}
		if opts.ResourceVersionMatch == "Exact" {
			sopts.Revision = rv
		}
	} else if opts.ResourceVersion == "0" {
		// "Any state will do": a watch cache may answer from memory. Unset
		// resourceVersion stays a consistent read.
		sopts.AllowStale = true
	}

	var kept int64
	var listMeta metav1.ListMeta
	for {
		page := sopts
		if opts.Limit > 0 {
			page.Limit = opts.Limit - kept
		}
		result, err := s.cfg.Storage.List(ctx, prefix, page)
		if errors.Is(err, storage.ErrCompacted) {
			if opts.Continue != "" {
				return metav1.ListMeta{}, ErrGone("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
			}
			return metav1.ListMeta{}, ErrGone(fmt.Sprintf("too old resource version: %d", sopts.Revision))
		}
		if err != nil {
			return metav1.ListMeta{}, storageError(err)
		}
		sopts.Revision = result.Revision
		for _, kv := range result.KVs {
			ok, err := keep(kv)
			if err != nil {
				return metav1.ListMeta{}, err
			}
			if ok {
				kept++
			}
		}
		listMeta.ResourceVersion = strconv.FormatInt(result.Revision, 10)
		if !result.More {
			return listMeta, nil
		}
		last := result.KVs[len(result.KVs)-1].Key
		if opts.Limit > 0 && kept >= opts.Limit {
			listMeta.Continue = encodeContinue(result.Revision, last, prefix)
			if opts.Labels.Empty() && opts.Fields.Empty() {
				n := result.Remaining
				listMeta.RemainingItemCount = &n
			}
			return listMeta, nil
		}
		sopts.StartAfter = last // a filtered page came back short: read on
	}
}

// create runs a new object through admission and validation and stores it.
func (s *Server) create(ctx context.Context, q *request, obj metav1.Object) (metav1.Object, error) {
	res := q.res
	meta := obj.GetObjectMeta()
	if err := checkNamespace(q, meta); err != nil {
		return nil, err
	}
	if meta.Name == "" && meta.GenerateName != "" {
		meta.Name = generateName(meta.GenerateName)
	}
	if err := checkCustomCreate(q, obj); err != nil {
		return nil, err
	}
	if err := s.admit(ctx, q, obj, nil); err != nil {
		return nil, err
	}
	prepareForCreate(res, obj, q.user)
	prepareManagedFields(obj)
	if err := s.validate(res, obj, nil, ""); err != nil {
		return nil, err
	}
	if err := s.validateAdmission(ctx, q, obj, nil); err != nil {
		return nil, err
	}
	if err := s.allocate(ctx, res, obj, nil, q.dryRun()); err != nil {
		return nil, err
	}
	s.recordManagedFields(q, nil, obj, "Update")
	data, err := encodeForStorage(res, obj)
	if err != nil {
		return nil, ErrInternal(err)
	}
	if len(data) > s.cfg.MaxObjectBytes {
		s.release(ctx, res, obj, nil)
		return nil, ErrRequestEntityTooLarge(fmt.Sprintf("limit is %d", s.cfg.MaxObjectBytes))
	}
	if q.dryRun() {
		return servedForm(q, obj, data, 0), nil
	}
	rev, err := s.cfg.Storage.Create(ctx, storageKey(res, meta.Namespace, meta.Name), data)
	if err != nil {
		s.release(ctx, res, obj, nil)
		if errors.Is(err, storage.ErrKeyExists) {
			se := ErrAlreadyExists(res.Group, res.Resource, res.GroupResource(), meta.Name)
			// As upstream's Store.Create: say so when the object in the way is on its way out.
			if existing, gerr := s.getObject(ctx, res, meta.Namespace, meta.Name); gerr == nil && existing.GetObjectMeta().DeletionTimestamp != nil {
				se.Status.Message = "object is being deleted: " + se.Status.Message
			}
			return nil, se
		}
		return nil, storageError(err)
	}
	meta.ResourceVersion = strconv.FormatInt(rev, 10)
	s.log.Debug("created", "resource", res.GroupResource(), "namespace", meta.Namespace, "name", meta.Name, "rv", rev)
	return servedForm(q, obj, data, rev), nil
}

// update is upstream's GuaranteedUpdate: read, let tryUpdate build the new
// object from the current one, and write it back if nobody wrote in between.
// An update without a resourceVersion is retried on a conflict; one with a
// stale resourceVersion is refused with 409 Conflict.
func (s *Server) update(ctx context.Context, q *request, name, subresource string,
	tryUpdate func(old metav1.Object) (metav1.Object, error), createOnMissing bool) (metav1.Object, bool, error) {
	res := q.res
	namespace := q.info.Namespace
	key := storageKey(res, namespace, name)
	for attempt := 0; ; attempt++ {
		kv, err := s.cfg.Storage.Get(ctx, key)
		if errors.Is(err, storage.ErrNotFound) {
			if createOnMissing && subresource == "" {
				obj, err := tryUpdate(nil)
				if err != nil {
					return nil, false, err
				}
				obj.GetObjectMeta().ResourceVersion = ""
				created, err := s.create(ctx, q, obj)
				return created, true, err
			}
			return nil, false, ErrNotFound(res.Group, res.Resource, res.GroupResource(), name)
		}
		if err != nil {
			return nil, false, storageError(err)
		}
		old, err := decodeFromStorage(res, kv)
		if err != nil {
			return nil, false, ErrInternal(err)
		}
		cur, err := decodeFromStorage(res, kv) // tryUpdate's own copy: decoding twice is cheaper than copying
		if err != nil {
			return nil, false, ErrInternal(err)
		}
		obj, err := tryUpdate(cur)
		if err != nil {
			return nil, false, err
		}
		meta := obj.GetObjectMeta()
		conditional := meta.ResourceVersion != ""
		if conditional && meta.ResourceVersion != old.GetObjectMeta().ResourceVersion {
			return nil, false, ErrConflict(res.Group, res.Resource, res.GroupResource(), name, errObjectModified)
		}
		if meta.UID != "" && meta.UID != old.GetObjectMeta().UID {
			return nil, false, ErrConflict(res.Group, res.Resource, res.GroupResource(), name,
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", meta.UID, old.GetObjectMeta().UID))
		}
		meta.ResourceVersion = old.GetObjectMeta().ResourceVersion // precondition checked above
		prepareForUpdate(res, obj, old, subresource)
		prepareManagedFields(obj)
		if err := s.admit(ctx, q, obj, old); err != nil {
			return nil, false, err
		}
		if err := s.validate(res, obj, old, subresource); err != nil {
			return nil, false, err
		}
		if err := s.validateAdmission(ctx, q, obj, old); err != nil {
			return nil, false, err
		}
		if err := s.allocate(ctx, res, obj, old, q.dryRun()); err != nil {
			return nil, false, err
		}
		s.recordManagedFields(q, old, obj, "Update")

		// The last finalizer removed from an object being deleted: delete it now.
		if old.GetObjectMeta().DeletionTimestamp != nil && len(meta.Finalizers) == 0 && deletionDue(res, obj) {
			if q.dryRun() {
				return obj, false, nil
			}
			if _, _, err := s.cfg.Storage.Delete(ctx, key, kv.ModRevision); err != nil {
				if errors.Is(err, storage.ErrConflict) && !conditional && attempt < 10 {
					continue
				}
				return nil, false, conflictOrStorage(res, name, err)
			}
			s.release(ctx, res, old, nil)
			return obj, false, nil
		}

		data, err := encodeForStorage(res, obj)
		if err != nil {
			return nil, false, ErrInternal(err)
		}
		if len(data) > s.cfg.MaxObjectBytes {
			return nil, false, ErrRequestEntityTooLarge(fmt.Sprintf("limit is %d", s.cfg.MaxObjectBytes))
		}
		if string(kv.Value) == string(data) {
			return old, false, nil // nothing changed: no write, same resourceVersion (as upstream's GuaranteedUpdate compares with the stored bytes)
		}
		if q.dryRun() {
			return servedForm(q, obj, data, 0), false, nil
		}
		rev, err := s.cfg.Storage.Update(ctx, key, data, kv.ModRevision)
		if err != nil {
			if errors.Is(err, storage.ErrConflict) && !conditional && attempt < 10 {
				continue // someone wrote in between; an unconditional update retries
			}
			if errors.Is(err, storage.ErrNotFound) && attempt < 10 {
				continue
			}
			return nil, false, conflictOrStorage(res, name, err)
		}
		s.release(ctx, res, old, obj)
		meta.ResourceVersion = strconv.FormatInt(rev, 10)
		return servedForm(q, obj, data, rev), false, nil
	}
}

func conflictOrStorage(res *scheme.Resource, name string, err error) error {
	if errors.Is(err, storage.ErrConflict) {
		return ErrConflict(res.Group, res.Resource, res.GroupResource(), name, errObjectModified)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return ErrNotFound(res.Group, res.Resource, res.GroupResource(), name)
	}
	return storageError(err)
}

// deletionDue: an object whose deletionTimestamp is set and whose finalizers
// are gone is removed — except a pod still in its grace period (its kubelet
// finishes that delete) and a namespace whose spec.finalizers remain.
func deletionDue(res *scheme.Resource, obj metav1.Object) bool {
	switch o := obj.(type) {
	case *corev1.Pod:
		g := o.DeletionGracePeriodSeconds
		return g == nil || *g == 0
	case *corev1.Namespace:
		return len(o.Spec.Finalizers) == 0
	}
	return true
}

// delete removes an object, or starts its graceful deletion: it returns the
// object and whether it is gone from storage.
func (s *Server) delete(ctx context.Context, q *request, namespace, name string, opts *metav1.DeleteOptions) (metav1.Object, bool, error) {
	res := q.res
	key := storageKey(res, namespace, name)
	if err := s.admitDelete(ctx, q, namespace, name); err != nil {
		return nil, false, err
	}
	// kubectl delete --dry-run=server sends dryRun in the DeleteOptions body,
	// not in the query; parseDeleteOptions merges both into opts.DryRun.
	dryRun := q.dryRun() || slices.Contains(opts.DryRun, "All")
	for attempt := 0; ; attempt++ {
		kv, err := s.cfg.Storage.Get(ctx, key)
		if errors.Is(err, storage.ErrNotFound) {
			return nil, false, ErrNotFound(res.Group, res.Resource, res.GroupResource(), name)
		}
		if err != nil {
			return nil, false, storageError(err)
		}
		obj, err := decodeFromStorage(res, kv)
		if err != nil {
			return nil, false, ErrInternal(err)
		}
		meta := obj.GetObjectMeta()
		if p := opts.Preconditions; p != nil {
			if p.UID != nil && *p.UID != meta.UID {
				return nil, false, ErrConflict(res.Group, res.Resource, res.GroupResource(), name,
					fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, meta.UID))
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != meta.ResourceVersion {
				return nil, false, ErrConflict(res.Group, res.Resource, res.GroupResource(), name,
					fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, meta.ResourceVersion))
			}
		}

		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok && crd.DeletionTimestamp == nil {
			startCRDDeletion(crd)
		}
		grace := gracePeriod(res, obj, opts)
		pending := s.deletionFinalizers(res, obj, opts)
		// A namespace with spec.finalizers stays (phase Terminating) until the
		// namespace controller has emptied it and removed them.
		nsHeld := false
		if ns, ok := obj.(*corev1.Namespace); ok && len(ns.Spec.Finalizers) > 0 {
			nsHeld = true
		}
		if grace > 0 || len(pending) > 0 || nsHeld {
			// Graceful deletion: mark the object and let its owner (kubelet,
			// garbage collector, namespace controller) finish the job.
			updated := metav1.DeepCopyObject(obj)
			um := updated.GetObjectMeta()
			now := metav1.Now()
			if um.DeletionTimestamp == nil {
				ts := metav1.NewTime(now.Add(time.Duration(grace) * time.Second))
				um.DeletionTimestamp = &ts
				if !nsHeld { // a namespace gets only the timestamp and phase Terminating
					um.DeletionGracePeriodSeconds = &grace
				}
				if um.Generation > 0 {
					um.Generation++ // the object's desired state changed: it should go away
				}
			} else if um.DeletionGracePeriodSeconds != nil && grace < *um.DeletionGracePeriodSeconds {
				ts := metav1.NewTime(now.Add(time.Duration(grace) * time.Second))
				um.DeletionTimestamp = &ts
				um.DeletionGracePeriodSeconds = &grace
			}
			um.Finalizers = pending
			if ns, ok := updated.(*corev1.Namespace); ok {
				ns.Status.Phase = corev1.NamespaceTerminating
			}
			{
				if dryRun {
					return updated, false, nil
				}
				data, err := encodeForStorage(res, updated)
				if err != nil {
					return nil, false, ErrInternal(err)
				}
				if oldData, _ := encodeForStorage(res, obj); string(oldData) == string(data) {
					return obj, false, nil
				}
				rev, err := s.cfg.Storage.Update(ctx, key, data, kv.ModRevision)
				if errors.Is(err, storage.ErrConflict) && attempt < 10 {
					continue
				}
				if err != nil {
					return nil, false, conflictOrStorage(res, name, err)
				}
				um.ResourceVersion = strconv.FormatInt(rev, 10)
				s.log.Debug("deletion started", "resource", res.GroupResource(), "namespace", namespace, "name", name, "grace", grace, "finalizers", pending)
				return updated, false, nil
			}
		}
		if dryRun {
			return obj, true, nil
		}
		if _, _, err := s.cfg.Storage.Delete(ctx, key, kv.ModRevision); err != nil {
			if errors.Is(err, storage.ErrConflict) && attempt < 10 {
				continue
			}
			return nil, false, conflictOrStorage(res, name, err)
		}
		s.release(ctx, res, obj, nil)
		s.log.Debug("deleted", "resource", res.GroupResource(), "namespace", namespace, "name", name)
		return obj, true, nil
	}
}

// gracePeriod is how long a deleted object lingers. Only pods bound to a node
// have one: their kubelet must stop the containers first. An unscheduled or
// finished pod goes at once, as upstream.
func gracePeriod(res *scheme.Resource, obj metav1.Object, opts *metav1.DeleteOptions) int64 {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return 0
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return 0
	}
	if opts.GracePeriodSeconds != nil {
		return *opts.GracePeriodSeconds
	}
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return 30
}

// deletionFinalizers returns the finalizers an object keeps while it is being
// deleted: its own, plus the garbage collector's orphan/foregroundDeletion when
// one runs.
func (s *Server) deletionFinalizers(res *scheme.Resource, obj metav1.Object, opts *metav1.DeleteOptions) []string {
	fin := append([]string(nil), obj.GetObjectMeta().Finalizers...)
	if s.cfg.EnableGarbageCollection {
		policy := ""
		if opts.PropagationPolicy != nil {
			policy = *opts.PropagationPolicy
		} else if opts.OrphanDependents != nil && *opts.OrphanDependents {
			policy = metav1.DeletePropagationOrphan
		}
		switch policy {
		case metav1.DeletePropagationOrphan:
			fin = appendIfMissing(removeString(fin, metav1.FinalizerDeleteDependents), metav1.FinalizerOrphanDependents)
		case metav1.DeletePropagationForeground:
			fin = appendIfMissing(removeString(fin, metav1.FinalizerOrphanDependents), metav1.FinalizerDeleteDependents)
		}
	}
	return fin
}

func appendIfMissing(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

func removeString(list []string, v string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// sameSpec compares the Spec field of two objects (generation bumps on spec changes).
func sameSpec(a, b metav1.Object) bool {
	av := reflect.ValueOf(a).Elem().FieldByName("Spec")
	bv := reflect.ValueOf(b).Elem().FieldByName("Spec")
	if !av.IsValid() || !bv.IsValid() {
		return true
	}
	ab, _ := json.Marshal(av.Interface())
	bb, _ := json.Marshal(bv.Interface())
	return string(ab) == string(bb)
}
