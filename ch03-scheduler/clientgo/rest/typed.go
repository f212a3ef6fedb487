package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"sync"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
)

// Object is the constraint of the generic helpers: T is one of our API
// structs (corev1.Pod) and *T has its metadata. Go infers PT, so a call
// names only T: client.Get[corev1.Pod](...).
type Object[T any] interface {
	*T
	metav1.Object
}

// ObjectList is one page of a list: its metadata (the resourceVersion the
// list was read at, the continue token) and the items.
type ObjectList[T any] struct {
	metav1.ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Items           []T `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ListOptions are the query parameters of a list or a watch.
type ListOptions struct {
	LabelSelector        string // "app=web,tier!=db"
	FieldSelector        string // "spec.nodeName=node-1"
	ResourceVersion      string // "": the newest state (read from etcd); "0": any state (a cache may answer)
	ResourceVersionMatch string // "", "Exact", "NotOlderThan"
	Limit                int64  // page size; 0: everything
	Continue             string
	// Watch only.
	TimeoutSeconds      int64 // the apiserver ends the watch after this long
	AllowWatchBookmarks bool  // ask for BOOKMARK events carrying the current resourceVersion
	SendInitialEvents   *bool // streaming list: ADDED for every object, then a bookmark
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("labelSelector", o.LabelSelector)
	set("fieldSelector", o.FieldSelector)
	set("resourceVersion", o.ResourceVersion)
	set("resourceVersionMatch", o.ResourceVersionMatch)
	set("continue", o.Continue)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents != nil {
		q.Set("sendInitialEvents", strconv.FormatBool(*o.SendInitialEvents))
	}
	return q
}

// Patch types, the Content-Type of a PATCH.
type PatchType string

const (
	JSONPatchType           PatchType = "application/json-patch+json"
	MergePatchType          PatchType = "application/merge-patch+json"
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
	ApplyPatchType          PatchType = "application/apply-patch+yaml"
)

// The resource of each Go type, found once in the scheme's table.
var (
	resourcesOnce  sync.Once
	resourceByType map[reflect.Type]*scheme.Resource
)

// ResourceFor returns the served resource whose objects are T: pods for
// corev1.Pod, leases.coordination.k8s.io for coordinationv1.Lease.
func ResourceFor[T any]() (*scheme.Resource, error) {
	resourcesOnce.Do(func() {
		resourceByType = map[reflect.Type]*scheme.Resource{}
		for _, r := range scheme.Resources {
			if r.NotStored {
				continue
			}
			t := reflect.TypeOf(r.New()).Elem()
			if _, dup := resourceByType[t]; !dup {
				resourceByType[t] = r
			}
		}
	})
	t := reflect.TypeFor[T]()
	if r, ok := resourceByType[t]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("client: %s is not a served resource", t)
}

// ResourcePath is the REST path of a resource, a namespace in it, an object
// and a subresource, each part left out when empty:
//
//	/api/v1/namespaces/default/pods/web/binding
//	/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler
//	/api/v1/nodes
func ResourcePath(r *scheme.Resource, namespace, name, subresource string) string {
	p := "/api/" + r.Version
	if r.Group != "" {
		p = "/apis/" + r.Group + "/" + r.Version
	}
	if r.Namespaced && namespace != "" {
		p += "/namespaces/" + url.PathEscape(namespace)
	}
	p += "/" + r.Resource
	if name != "" {
		p += "/" + url.PathEscape(name)
		if subresource != "" {
			p += "/" + subresource
		}
	}
	return p
}

func pathFor[T any](namespace, name, subresource string) (string, error) {
	r, err := ResourceFor[T]()
	if err != nil {
		return "", err
	}
	if r.Namespaced && name != "" && namespace == "" {
		return "", fmt.Errorf("client: %s %q: a namespace is required", r.Resource, name)
	}
	return ResourcePath(r, namespace, name, subresource), nil
}

// Get reads one object: GET .../<resource>/<name>.
func Get[T any, PT Object[T]](ctx context.Context, c *Client, namespace, name string) (*T, error) {
	p, err := pathFor[T](namespace, name, "")
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := c.Do(ctx, Request{Method: http.MethodGet, Path: p, Accept: acceptFor(out)}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// List reads one page of objects in namespace ("" for all namespaces or a
// cluster-scoped resource).
func List[T any, PT Object[T]](ctx context.Context, c *Client, namespace string, opts ListOptions) (*ObjectList[T], error) {
	p, err := pathFor[T](namespace, "", "")
	if err != nil {
		return nil, err
	}
	return listPath[T](ctx, c, p, opts)
}

// ListResource lists resource r into T, whatever r's own kind is: with T =
// metav1.PartialObjectMetadata it reads only the metadata of any served
// resource, as client-go's metadata client does (the garbage collector and
// the namespace controller work on resources found by discovery).
func ListResource[T any, PT Object[T]](ctx context.Context, c *Client, r *scheme.Resource, namespace string, opts ListOptions) (*ObjectList[T], error) {
	return listPath[T](ctx, c, ResourcePath(r, namespace, "", ""), opts)
}

func listPath[T any](ctx context.Context, c *Client, p string, opts ListOptions) (*ObjectList[T], error) {
	out := &ObjectList[T]{}
	if err := c.Do(ctx, Request{Method: http.MethodGet, Path: p, Query: opts.query(), Accept: acceptFor(new(T))}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Create creates obj in its metadata.namespace and returns what was stored.
func Create[T any, PT Object[T]](ctx context.Context, c *Client, obj *T) (*T, error) {
	m := PT(obj).GetObjectMeta()
	p, err := pathFor[T](m.Namespace, "", "")
	if err != nil {
		return nil, err
	}
	return send[T](ctx, c, http.MethodPost, p, "", obj)
}

// CreateWithoutResult creates obj (POST) and does not decode the object
// the apiserver answers with: for writers that never look at it, such as
// an event recorder sending an event for every pod it schedules.
func CreateWithoutResult[T any, PT Object[T]](ctx context.Context, c *Client, obj *T) error {
	// A POST to the collection, with no object to decode the answer into.
	return CreateSubresource[T, PT](ctx, c, PT(obj).GetObjectMeta().Namespace, "", "", obj, nil)
}

// Update replaces obj (PUT). Its resourceVersion makes it an optimistic
// concurrency check: IsConflict(err) if someone else wrote it meanwhile.
func Update[T any, PT Object[T]](ctx context.Context, c *Client, obj *T) (*T, error) {
	return updateSub[T, PT](ctx, c, obj, "")
}

// UpdateStatus replaces obj's status (PUT .../status); the rest of the
// object is ignored by the apiserver.
func UpdateStatus[T any, PT Object[T]](ctx context.Context, c *Client, obj *T) (*T, error) {
	return updateSub[T, PT](ctx, c, obj, "status")
}

func updateSub[T any, PT Object[T]](ctx context.Context, c *Client, obj *T, sub string) (*T, error) {
	m := PT(obj).GetObjectMeta()
	p, err := pathFor[T](m.Namespace, m.Name, sub)
	if err != nil {
		return nil, err
	}
	return send[T](ctx, c, http.MethodPut, p, "", obj)
}

// Patch changes an object with a patch of type pt; subresource is "" or
// "status".
func Patch[T any, PT Object[T]](ctx context.Context, c *Client, namespace, name string, pt PatchType, patch []byte, subresource string) (*T, error) {
	p, err := pathFor[T](namespace, name, subresource)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := c.Do(ctx, Request{Method: http.MethodPatch, Path: p, ContentType: string(pt), Body: patch, Accept: acceptFor(out)}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Delete deletes an object; opts (may be nil) carries the grace period,
// preconditions and propagation policy.
func Delete[T any, PT Object[T]](ctx context.Context, c *Client, namespace, name string, opts *metav1.DeleteOptions) error {
	p, err := pathFor[T](namespace, name, "")
	if err != nil {
		return err
	}
	var body []byte
	if opts != nil {
		o := *opts
		o.TypeMeta = metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}
		if body, err = json.Marshal(o); err != nil {
			return err
		}
	}
	return c.Do(ctx, Request{Method: http.MethodDelete, Path: p, Body: body}, nil)
}

// CreateSubresource POSTs body to a subresource of a T and decodes the answer
// into out (may be nil): pods/binding (the scheduler), pods/eviction,
// serviceaccounts/token.
func CreateSubresource[T any, PT Object[T]](ctx context.Context, c *Client, namespace, name, subresource string, body, out any) error {
	p, err := pathFor[T](namespace, name, subresource)
	if err != nil {
		return err
	}
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return c.Do(ctx, Request{Method: http.MethodPost, Path: p, Body: data, Accept: acceptFor(out)}, out)
}

func send[T any](ctx context.Context, c *Client, method, path, contentType string, obj *T) (*T, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := c.Do(ctx, Request{Method: method, Path: path, ContentType: contentType, Body: data, Accept: acceptFor(out)}, out); err != nil {
		return nil, err
	}
	return out, nil
}
