package namespace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
)

// ResourcesRemainingError: content remains that will go by itself (pods in
// their grace period); Estimate is in seconds. Upstream: the same name.
type ResourcesRemainingError struct {
	Estimate int64
}

func (e *ResourcesRemainingError) Error() string {
	return fmt.Sprintf("some content remains in the namespace, estimate %d seconds before it is removed", e.Estimate)
}

// namespacedResourcesDeleter deletes everything in a namespace, then
// finalizes it. Upstream: deletion/namespaced_resources_deleter.go.
type namespacedResourcesDeleter struct {
	client *rest.Client
	log    *slog.Logger
	// discoverResourcesFn lists the namespaced resources (tests replace it).
	discoverResourcesFn func(ctx context.Context) ([]*scheme.Resource, error)

	mu sync.Mutex
	// noDeleteCollection remembers the resources that refused
	// deletecollection (upstream's opCache).
	noDeleteCollection map[string]bool
}

func newNamespacedResourcesDeleter(c *rest.Client, log *slog.Logger) *namespacedResourcesDeleter {
	d := &namespacedResourcesDeleter{client: c, log: log, noDeleteCollection: map[string]bool{}}
	d.discoverResourcesFn = d.serverPreferredNamespacedResources
	return d
}

func (d *namespacedResourcesDeleter) serverPreferredNamespacedResources(ctx context.Context) ([]*scheme.Resource, error) {
	all, err := controller.ServerPreferredResources(ctx, d.client)
	var out []*scheme.Resource
	for _, r := range all {
		if r.Namespaced {
			out = append(out, r)
		}
	}
	return out, err
}

// Delete empties namespace nsName if it is being deleted and still carries
// the "kubernetes" finalizer, then removes that finalizer.
func (d *namespacedResourcesDeleter) Delete(ctx context.Context, nsName string) error {
	// Several controllers may edit a namespace while it terminates: work
	// on its latest state.
	ns, err := rest.Get[corev1.Namespace](ctx, d.client, "", nsName)
	if err != nil {
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	}
	if ns.DeletionTimestamp == nil {
		return nil
	}
	ns, err = d.retryOnConflictError(ctx, ns, d.updateNamespaceStatusFunc)
	if err != nil {
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	}
	if ns.DeletionTimestamp == nil || finalized(ns) {
		return nil
	}
	estimate, err := d.deleteAllContent(ctx, ns)
	if err != nil {
		return err
	}
	if estimate > 0 {
		return &ResourcesRemainingError{Estimate: estimate}
	}
	// Nothing is left: remove our finalizer, and the apiserver deletes the
	// namespace (unless other finalizers remain).
	_, err = d.retryOnConflictError(ctx, ns, d.finalizeNamespace)
	if rest.IsNotFound(err) {
		return nil
	}
	if err == nil {
		d.log.Info("namespace finalized", "namespace", nsName)
	}
	return err
}

// retryOnConflictError applies fn, reading the namespace again after a
// conflict.
func (d *namespacedResourcesDeleter) retryOnConflictError(ctx context.Context, ns *corev1.Namespace,
	fn func(context.Context, *corev1.Namespace) (*corev1.Namespace, error)) (*corev1.Namespace, error) {
	for {
		result, err := fn(ctx, ns)
		if err == nil || !rest.IsConflict(err) {
			return result, err
		}
		latest, err := rest.Get[corev1.Namespace](ctx, d.client, "", ns.Name)
		if err != nil {
			return nil, err
		}
		if latest.UID != ns.UID {
			return nil, fmt.Errorf("namespace %s: the UID changed while it was being deleted", ns.Name)
		}
		ns = latest
	}
}

// updateNamespaceStatusFunc makes sure the phase says Terminating.
func (d *namespacedResourcesDeleter) updateNamespaceStatusFunc(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
	if ns.DeletionTimestamp == nil || ns.Status.Phase == corev1.NamespaceTerminating {
		return ns, nil
	}
	updated := *ns
	updated.Status.Phase = corev1.NamespaceTerminating
	return rest.UpdateStatus(ctx, d.client, &updated)
}

// finalized: "kubernetes" is no longer in spec.finalizers.
func finalized(ns *corev1.Namespace) bool {
	return !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
}

// finalizeNamespace removes "kubernetes" from spec.finalizers through the
// finalize subresource.
func (d *namespacedResourcesDeleter) finalizeNamespace(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
	updated := *ns
	updated.Spec.Finalizers = slices.DeleteFunc(slices.Clone(ns.Spec.Finalizers),
		func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	body, err := json.Marshal(&updated)
	if err != nil {
		return nil, err
	}
	out := &corev1.Namespace{}
	err = d.client.Do(ctx, rest.Request{Method: http.MethodPut, Path: "/api/v1/namespaces/" + ns.Name + "/finalize", Body: body}, out)
	return out, err
}

// deleteAllContent deletes every namespaced object in ns and records the
// outcome in ns's conditions. It returns an estimate (seconds) of how long
// the remaining content takes to go by itself.
func (d *namespacedResourcesDeleter) deleteAllContent(ctx context.Context, ns *corev1.Namespace) (int64, error) {
	var errs []error
	var conditions namespaceConditionUpdater
	resources, err := d.discoverResourcesFn(ctx)
	if err != nil {
		// Not fatal: delete what could be discovered.
		errs = append(errs, err)
		conditions.ProcessDiscoverResourcesErr(err)
	}
	deletable := controller.SupportsAllVerbs(resources, "delete")

	var estimate int64
	totals := allGVRDeletionMetadata{gvrToNumRemaining: map[*scheme.Resource]int{}, finalizersToNumRemaining: map[string]int{}}
	deleteResource := func(r *scheme.Resource) {
		meta, err := d.deleteAllContentForGroupVersionResource(ctx, r, ns.Name)
		if err != nil {
			errs = append(errs, err)
			conditions.ProcessDeleteContentErr(err)
		}
		estimate = max(estimate, meta.finalizerEstimateSeconds)
		if meta.numRemaining > 0 {
			totals.gvrToNumRemaining[r] = meta.numRemaining
			for f, n := range meta.finalizersToNumRemaining {
				totals.finalizersToNumRemaining[f] += n
			}
		}
	}
	// Pods first, and nothing else while any remains (OrderedNamespaceDeletion,
	// on since 1.33): a pod never outlives the NetworkPolicy, Secret or
	// ConfigMap it uses.
	// As upstream, the conditions then say nothing of the remaining pods
	// (NamespaceContentRemaining stays False).
	podsIndex := slices.IndexFunc(deletable, func(r *scheme.Resource) bool { return r.Group == "" && r.Resource == "pods" })
	podsRemain := false
	if podsIndex >= 0 {
		pods := deletable[podsIndex]
		deletable = slices.Delete(slices.Clone(deletable), podsIndex, podsIndex+1)
		deleteResource(pods)
		if totals.gvrToNumRemaining[pods] > 0 {
			d.log.Debug("pods still remain, delaying deletion of other resources", "namespace", ns.Name)
			podsRemain = true
			deletable = nil
		}
	}
	for _, r := range deletable {
		deleteResource(r)
	}
	if !podsRemain {
		conditions.ProcessContentTotals(totals)
	}
	// Always written when changed: a condition that was failing and now
	// is not must say so.
	if conditions.Update(ns) {
		if updated, err := rest.UpdateStatus(ctx, d.client, ns); err != nil {
			d.log.Info("couldn't update status condition for namespace", "namespace", ns.Name, "err", err)
		} else {
			*ns = *updated
		}
	}
	return estimate, errors.Join(errs...)
}

// finalizerEstimateSeconds is the estimate when objects wait for their
// finalizers: the deleter looks again after 15/2+1 = 8 s.
const finalizerEstimateSeconds = int64(15)

// gvrDeletionMetadata is what remains of one resource in the namespace.
type gvrDeletionMetadata struct {
	finalizerEstimateSeconds int64
	numRemaining             int
	finalizersToNumRemaining map[string]int
}

type allGVRDeletionMetadata struct {
	gvrToNumRemaining        map[*scheme.Resource]int
	finalizersToNumRemaining map[string]int
}

// deleteAllContentForGroupVersionResource deletes the objects of one
// resource in namespace and reports what remains: objects held by
// finalizers, or pods in their grace period, are fine (an estimate); any
// other leftover is an error.
func (d *namespacedResourcesDeleter) deleteAllContentForGroupVersionResource(ctx context.Context, r *scheme.Resource, namespace string) (gvrDeletionMetadata, error) {
	estimate, err := d.estimateGracefulTermination(ctx, r, namespace)
	if err != nil {
		estimate = 0
	}
	supported, err := d.deleteCollection(ctx, r, namespace)
	if err != nil {
		return gvrDeletionMetadata{finalizerEstimateSeconds: estimate}, err
	}
	if !supported {
		if err := d.deleteEachItem(ctx, r, namespace); err != nil {
			return gvrDeletionMetadata{finalizerEstimateSeconds: estimate}, err
		}
	}
	if !slices.Contains(r.Verbs, "list") {
		return gvrDeletionMetadata{finalizerEstimateSeconds: estimate}, nil
	}
	list, err := rest.ListResource[metav1.PartialObjectMetadata](ctx, d.client, r, namespace, rest.ListOptions{})
	if err != nil {
		return gvrDeletionMetadata{finalizerEstimateSeconds: estimate}, err
	}
	if len(list.Items) == 0 {
		return gvrDeletionMetadata{}, nil
	}
	finalizers := map[string]int{}
	for _, it := range list.Items {
		for _, f := range it.Finalizers {
			finalizers[f]++
		}
	}
	meta := gvrDeletionMetadata{finalizerEstimateSeconds: estimate, numRemaining: len(list.Items), finalizersToNumRemaining: finalizers}
	if estimate != 0 {
		return meta, nil
	}
	if len(finalizers) > 0 {
		// Held by finalizers: normal, give their owners (the garbage
		// collector, ...) time.
		meta.finalizerEstimateSeconds = finalizerEstimateSeconds
		return meta, nil
	}
	return meta, fmt.Errorf("unexpected items still remain in namespace: %s for gvr: %s", namespace, gvrString(r))
}

// gvrString prints a resource as upstream's GroupVersionResource does.
func gvrString(r *scheme.Resource) string {
	return fmt.Sprintf("%s/%s, Resource=%s", r.Group, r.Version, r.Resource)
}

// deleteCollection deletes every object of r in namespace with one request;
// false if r does not support it.
func (d *namespacedResourcesDeleter) deleteCollection(ctx context.Context, r *scheme.Resource, namespace string) (bool, error) {
	key := r.GroupResource()
	d.mu.Lock()
	refused := d.noDeleteCollection[key]
	d.mu.Unlock()
	if refused || !slices.Contains(r.Verbs, "deletecollection") {
		return false, nil
	}
	err := d.client.Do(ctx, rest.Request{Method: http.MethodDelete, Path: rest.ResourcePath(r, namespace, "", ""),
		Body: backgroundDeleteOptions()}, nil)
	if err == nil {
		return true, nil
	}
	var se *rest.StatusError
	if errors.As(err, &se) && (se.ErrStatus.Code == http.StatusMethodNotAllowed || se.ErrStatus.Code == http.StatusNotFound) {
		d.mu.Lock()
		d.noDeleteCollection[key] = true
		d.mu.Unlock()
		return false, nil
	}
	return true, err
}

// deleteEachItem lists r in namespace and deletes the objects one by one.
func (d *namespacedResourcesDeleter) deleteEachItem(ctx context.Context, r *scheme.Resource, namespace string) error {
	if !slices.Contains(r.Verbs, "list") {
		return nil
	}
	list, err := rest.ListResource[metav1.PartialObjectMetadata](ctx, d.client, r, namespace, rest.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range list.Items {
		err := d.client.Do(ctx, rest.Request{Method: http.MethodDelete, Path: rest.ResourcePath(r, namespace, it.Name, ""),
			Body: backgroundDeleteOptions()}, nil)
		if err != nil && !rest.IsNotFound(err) && !isMethodNotAllowed(err) {
			return err
		}
	}
	return nil
}

func isMethodNotAllowed(err error) bool {
	var se *rest.StatusError
	return errors.As(err, &se) && se.ErrStatus.Code == http.StatusMethodNotAllowed
}

// backgroundDeleteOptions: dependents are left to the garbage collector.
func backgroundDeleteOptions() []byte {
	policy := metav1.DeletePropagationBackground
	b, _ := json.Marshal(metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}, PropagationPolicy: &policy})
	return b
}

// estimateGracefulTermination: only pods take time to go; the estimate is
// the longest terminationGracePeriodSeconds of the pods not yet finished.
func (d *namespacedResourcesDeleter) estimateGracefulTermination(ctx context.Context, r *scheme.Resource, namespace string) (int64, error) {
	if r.Group != "" || r.Resource != "pods" {
		return 0, nil
	}
	pods, err := rest.List[corev1.Pod](ctx, d.client, namespace, rest.ListOptions{})
	if err != nil {
		return 0, err
	}
	var estimate int64
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g > estimate {
			estimate = *g
		}
	}
	return estimate, nil
}
