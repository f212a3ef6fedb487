// Package scheme lists every resource the apiserver serves: its group, version,
// plural and singular names, kind, scope, short names, categories, subresources,
// the etcd key prefix upstream uses, and how to make a new empty object.
//
// Upstream spreads this over the Scheme (kinds), the REST storage of each
// resource (plural names, scope, short names) and discovery. Here it is one
// readable table, resources.go; the apiserver builds its routes, discovery
// and OpenAPI from it.
package scheme

import (
	"strings"

	"kubik/ch01-apiserver/api/metav1"
)

// Resource describes one served resource.
type Resource struct {
	Group        string // "" for the core group
	Version      string
	Resource     string // plural, lower case: "pods"
	Singular     string // "pod"
	Kind         string // "Pod"
	Namespaced   bool
	ShortNames   []string
	Categories   []string
	Verbs        []string // discovery verbs of the main resource
	Subresources []Subresource
	// StoragePrefix is the resource's etcd key segment: keys are
	// /registry/<StoragePrefix>/<namespace>/<name>. Mostly the plural, but
	// upstream keeps historical names for a few ("minions" for nodes).
	StoragePrefix string
	// Generation: metadata.generation is set on create and bumped on spec changes.
	Generation bool
	// GenerationOnSpecChange: metadata.generation is bumped on spec
	// changes but not set on create, so it starts at 0 (upstream's
	// CSIDriver strategy).
	GenerationOnSpecChange bool
	// NotStored: a create-only kind that is answered, never stored
	// (SelfSubjectAccessReview, TokenReview, ...). Upstream calls these
	// "virtual" resources; discovery gives them no storageVersionHash.
	NotStored bool
	// New returns an empty object of the kind.
	New func() metav1.Object
	// Storage, when set, is the representation stored instead of this one:
	// events.k8s.io/v1 Events are stored as core/v1 Events (one key space,
	// /registry/events), converted on the way in and out, as upstream does.
	Storage *StorageConversion
}

// StorageConversion converts between a served kind and its stored kind.
type StorageConversion struct {
	New         func() metav1.Object // an empty stored object
	APIVersion  string
	Kind        string
	ToStorage   func(metav1.Object) metav1.Object
	FromStorage func(metav1.Object) metav1.Object
}

// Subresource is "status", "scale", "binding", ... of a resource.
type Subresource struct {
	Name    string
	Group   string // of the subresource's kind when it differs (Scale is autoscaling/v1)
	Version string
	Kind    string
	Verbs   []string
	// Connect: not stored but passed on to the pod's kubelet (pods/log,
	// exec, attach, portforward); upstream's "connect" REST storage.
	Connect bool
}

// GroupVersion is "v1" for the core group and "apps/v1" otherwise.
func (r *Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource is "pods" or "deployments.apps": upstream's error-message form.
func (r *Resource) GroupResource() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// Subresource returns the named subresource, or nil.
func (r *Resource) Subresource(name string) *Subresource {
	for i := range r.Subresources {
		if r.Subresources[i].Name == name {
			return &r.Subresources[i]
		}
	}
	return nil
}

// ListKind is "PodList".
func (r *Resource) ListKind() string { return r.Kind + "List" }

// Lookup finds a resource by group, version and plural name.
func Lookup(group, version, resource string) *Resource {
	for _, r := range Resources {
		if r.Group == group && r.Version == version && r.Resource == resource {
			return r
		}
	}
	return nil
}

// ByKind finds a resource by apiVersion ("apps/v1") and kind.
func ByKind(apiVersion, kind string) *Resource {
	for _, r := range Resources {
		if r.GroupVersion() == apiVersion && r.Kind == kind {
			return r
		}
	}
	return nil
}

// GroupVersions lists the served group versions, core first, in Resources order.
func GroupVersions() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range Resources {
		gv := r.GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	return out
}

// SplitGroupVersion turns "apps/v1" into ("apps", "v1") and "v1" into ("", "v1").
func SplitGroupVersion(gv string) (group, version string) {
	if i := strings.Index(gv, "/"); i >= 0 {
		return gv[:i], gv[i+1:]
	}
	return "", gv
}

// Verbs most resources have.
var (
	AllVerbs       = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	NamespaceVerbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	SubresourceRW  = []string{"get", "patch", "update"}
	CreateOnly     = []string{"create"}
	ConnectVerbs   = []string{"create", "get"} // exec, attach, portforward: POST (SPDY) or GET (WebSocket)
)

func status(kind string) Subresource {
	return Subresource{Name: "status", Kind: kind, Verbs: SubresourceRW}
}

func scale() Subresource {
	return Subresource{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: SubresourceRW}
}

func connect(name, kind string, verbs []string) Subresource {
	return Subresource{Name: name, Kind: kind, Verbs: verbs, Connect: true}
}
