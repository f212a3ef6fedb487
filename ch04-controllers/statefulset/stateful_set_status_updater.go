package statefulset

import (
	"context"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// realStatefulSetStatusUpdater writes a StatefulSet's status, retrying on
// conflicts with the informer's newer copy. Upstream:
// stateful_set_status_updater.go.
type realStatefulSetStatusUpdater struct {
	client *rest.Client
	sets   *cache.Informer[appsv1.StatefulSet, *appsv1.StatefulSet]
}

// UpdateStatefulSetStatus sets set's status to status.
func (ssu *realStatefulSetStatusUpdater) UpdateStatefulSetStatus(ctx context.Context, set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) error {
	var err error
	for range updateRetries {
		set.Status = *status
		if _, err = rest.UpdateStatus(ctx, ssu.client, set); err == nil || !rest.IsConflict(err) {
			return err
		}
		if cached, ok := ssu.sets.GetStore().Get(set.Namespace, set.Name); ok {
			set = metav1.DeepCopy(cached)
		}
	}
	return err
}

// updateRetries bounds the retries of an update on conflicts (client-go's
// retry.DefaultRetry has 5 steps).
const updateRetries = 5
