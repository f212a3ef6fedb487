// Package history keeps a controller's history as ControllerRevisions:
// immutable snapshots of the part of an owner's spec that a rollout
// changes (a DaemonSet's or StatefulSet's pod template), each named
// <owner>-<hash>, owned through a controllerRef and numbered by Revision.
// `kubectl rollout history` lists them; `kubectl rollout undo` applies one
// back to the owner.
//
// HashControllerRevision is upstream's: FNV-1 (32 bits) over the
// revision's Data, then over the decimal collision count when set, the
// number rendered in decimal and mapped to SafeEncodeString's alphabet.
// A DaemonSet names its revisions with the template hash instead
// (controller.ComputeHash), as upstream does.
//
// Upstream: pkg/controller/history (controller_history.go).
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// ControllerRevisionHashLabel labels a revision with the hash of its Data.
const ControllerRevisionHashLabel = "controller.kubernetes.io/hash"

// ControllerRevisionName is prefix-hash, the prefix cut to 223 bytes so
// the name stays within 253.
func ControllerRevisionName(prefix string, hash string) string {
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return prefix + "-" + hash
}

// NewControllerRevision is a revision of parent (of apiVersion/kind),
// labelled with templateLabels and its hash, holding data, numbered
// revision, named after its hash with collisionCount as the probe.
func NewControllerRevision(parent *metav1.ObjectMeta, apiVersion, kind string, templateLabels map[string]string,
	data []byte, revision int64, collisionCount *int32) *appsv1.ControllerRevision {
	labels := make(map[string]string, len(templateLabels)+1)
	for k, v := range templateLabels {
		labels[k] = v
	}
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       parent.Namespace,
			Labels:          labels,
			OwnerReferences: []metav1.OwnerReference{controller.NewControllerRef(parent, apiVersion, kind)},
		},
		Data:     appsv1.RawExtension{Raw: data},
		Revision: revision,
	}
	hash := HashControllerRevision(cr, collisionCount)
	cr.Name = ControllerRevisionName(parent.Name, hash)
	cr.Labels[ControllerRevisionHashLabel] = hash
	return cr
}

// HashControllerRevision hashes revision's Data, and probe when not nil.
func HashControllerRevision(revision *appsv1.ControllerRevision, probe *int32) string {
	hf := fnv.New32()
	if len(revision.Data.Raw) > 0 {
		hf.Write(revision.Data.Raw)
	}
	if probe != nil {
		hf.Write([]byte(strconv.FormatInt(int64(*probe), 10)))
	}
	return controller.SafeEncodeString(fmt.Sprint(hf.Sum32()))
}

// SortControllerRevisions sorts by Revision, then creation time, then name.
func SortControllerRevisions(revisions []*appsv1.ControllerRevision) {
	sort.SliceStable(revisions, func(i, j int) bool {
		a, b := revisions[i], revisions[j]
		if a.Revision != b.Revision {
			return a.Revision < b.Revision
		}
		if !a.CreationTimestamp.Equal(b.CreationTimestamp.Time) {
			return a.CreationTimestamp.Before(b.CreationTimestamp.Time)
		}
		return a.Name < b.Name
	})
}

// EqualRevision: both nil, or the same Data (their hash labels, where both
// parse as numbers, must agree too).
func EqualRevision(lhs, rhs *appsv1.ControllerRevision) bool {
	if lhs == nil || rhs == nil {
		return lhs == rhs
	}
	l, lerr := strconv.ParseInt(lhs.Labels[ControllerRevisionHashLabel], 10, 32)
	r, rerr := strconv.ParseInt(rhs.Labels[ControllerRevisionHashLabel], 10, 32)
	if lerr == nil && rerr == nil && l != r {
		return false
	}
	return bytes.Equal(lhs.Data.Raw, rhs.Data.Raw)
}

// FindEqualRevisions returns the revisions equal to needle, in order.
func FindEqualRevisions(revisions []*appsv1.ControllerRevision, needle *appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	var eq []*appsv1.ControllerRevision
	for _, r := range revisions {
		if EqualRevision(r, needle) {
			eq = append(eq, r)
		}
	}
	return eq
}

// Interface manages a controller's ControllerRevisions. Pointers passed in
// are never changed; ListControllerRevisions returns the cache's own
// objects, to be copied (metav1.DeepCopy) before any change. Upstream:
// history.Interface.
type Interface interface {
	// ListControllerRevisions: the revisions in parent's namespace matching
	// selector that parent owns or no controller owns (from the cache).
	ListControllerRevisions(parent *metav1.ObjectMeta, selector selection.LabelSelector) []*appsv1.ControllerRevision
	// CreateControllerRevision creates revision, renamed with the hash
	// probed by *collisionCount; on a name taken by different Data it
	// increments *collisionCount and tries again. A revision of that name
	// with the same Data is returned as is.
	CreateControllerRevision(ctx context.Context, parent *metav1.ObjectMeta, revision *appsv1.ControllerRevision, collisionCount *int32) (*appsv1.ControllerRevision, error)
	DeleteControllerRevision(ctx context.Context, revision *appsv1.ControllerRevision) error
	// UpdateControllerRevision sets Revision to newRevision (retrying on
	// conflicts from a fresh read).
	UpdateControllerRevision(ctx context.Context, revision *appsv1.ControllerRevision, newRevision int64) (*appsv1.ControllerRevision, error)
	// AdoptControllerRevision adds parent's controllerRef to an orphan.
	AdoptControllerRevision(ctx context.Context, parent *metav1.ObjectMeta, apiVersion, kind string, revision *appsv1.ControllerRevision) (*appsv1.ControllerRevision, error)
	// ReleaseControllerRevision removes parent's ownerReference; a revision
	// gone or no longer owned is not an error (nil, nil).
	ReleaseControllerRevision(ctx context.Context, parent *metav1.ObjectMeta, revision *appsv1.ControllerRevision) (*appsv1.ControllerRevision, error)
}

// NewHistory is the Interface over client and the shared ControllerRevision
// informer (which it indexes by namespace).
func NewHistory(client *rest.Client, informer *cache.Informer[appsv1.ControllerRevision, *appsv1.ControllerRevision]) Interface {
	cache.AddNamespaceIndex(informer)
	return &realHistory{client: client, informer: informer}
}

type realHistory struct {
	client   *rest.Client
	informer *cache.Informer[appsv1.ControllerRevision, *appsv1.ControllerRevision]
}

func (rh *realHistory) ListControllerRevisions(parent *metav1.ObjectMeta, selector selection.LabelSelector) []*appsv1.ControllerRevision {
	var owned []*appsv1.ControllerRevision
	for _, r := range rh.informer.GetStore().ByIndex(cache.NamespaceIndex, parent.Namespace) {
		if !selector.Matches(r.Labels) {
			continue
		}
		if ref := metav1.GetControllerOf(&r.ObjectMeta); ref == nil || ref.UID == parent.UID {
			owned = append(owned, r)
		}
	}
	return owned
}

func (rh *realHistory) CreateControllerRevision(ctx context.Context, parent *metav1.ObjectMeta, revision *appsv1.ControllerRevision, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	if collisionCount == nil {
		return nil, fmt.Errorf("collisionCount should not be nil")
	}
	clone := metav1.DeepCopy(revision)
	clone.Namespace = parent.Namespace
	for {
		clone.Name = ControllerRevisionName(parent.Name, HashControllerRevision(revision, collisionCount))
		created, err := rest.Create(ctx, rh.client, clone)
		if rest.IsAlreadyExists(err) {
			exists, err := rest.Get[appsv1.ControllerRevision](ctx, rh.client, clone.Namespace, clone.Name)
			if err != nil {
				return nil, err
			}
			if bytes.Equal(exists.Data.Raw, clone.Data.Raw) {
				return exists, nil
			}
			*collisionCount++
			continue
		}
		return created, err
	}
}

func (rh *realHistory) DeleteControllerRevision(ctx context.Context, revision *appsv1.ControllerRevision) error {
	return rest.Delete[appsv1.ControllerRevision](ctx, rh.client, revision.Namespace, revision.Name, nil)
}

func (rh *realHistory) UpdateControllerRevision(ctx context.Context, revision *appsv1.ControllerRevision, newRevision int64) (*appsv1.ControllerRevision, error) {
	clone := metav1.DeepCopy(revision)
	var err error
	for attempt := 0; attempt < 5; attempt++ { // upstream: retry.DefaultBackoff's five steps
		if clone.Revision == newRevision {
			return clone, nil
		}
		clone.Revision = newRevision
		var updated *appsv1.ControllerRevision
		if updated, err = rest.Update(ctx, rh.client, clone); err == nil {
			return updated, nil
		}
		if !rest.IsConflict(err) {
			return nil, err
		}
		fresh, getErr := rest.Get[appsv1.ControllerRevision](ctx, rh.client, clone.Namespace, clone.Name)
		if getErr != nil {
			return nil, getErr
		}
		clone = fresh
	}
	return nil, err
}

func (rh *realHistory) AdoptControllerRevision(ctx context.Context, parent *metav1.ObjectMeta, apiVersion, kind string, revision *appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	if owner := metav1.GetControllerOf(&revision.ObjectMeta); owner != nil {
		return nil, fmt.Errorf("attempt to adopt revision owned by %v", owner)
	}
	patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}],"uid":%q}}`,
		apiVersion, kind, parent.Name, parent.UID, revision.UID)
	return rest.Patch[appsv1.ControllerRevision](ctx, rh.client, parent.Namespace, revision.Name, rest.StrategicMergePatchType, []byte(patch), "")
}

func (rh *realHistory) ReleaseControllerRevision(ctx context.Context, parent *metav1.ObjectMeta, revision *appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"$patch":"delete","uid":%q}],"uid":%q}}`, parent.UID, revision.UID)
	released, err := rest.Patch[appsv1.ControllerRevision](ctx, rh.client, revision.Namespace, revision.Name, rest.StrategicMergePatchType, []byte(patch), "")
	if rest.IsNotFound(err) || rest.IsInvalid(err) {
		return nil, nil
	}
	return released, err
}

// TemplatePatch is what a DaemonSet's or StatefulSet's revision stores: a
// strategic merge patch that puts the pod template back,
// {"spec":{"template":{"$patch":"replace",...}}}, with keys sorted (the
// JSON of a decoded map). Upstream's types encode the template's zero
// creationTimestamp as null, ours omit it: it is put back, so the bytes are
// those kubectl computes when it compares a revision with the object
// (rollout undo's "skipped rollback"). Upstream: each controller's getPatch.
func TemplatePatch(tmpl *corev1.PodTemplateSpec) ([]byte, error) {
	data, err := json.Marshal(tmpl)
	if err != nil {
		return nil, err
	}
	var template map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // integers stay as written
	if err := dec.Decode(&template); err != nil {
		return nil, err
	}
	meta, _ := template["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		template["metadata"] = meta
	}
	if _, ok := meta["creationTimestamp"]; !ok {
		meta["creationTimestamp"] = nil
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}
