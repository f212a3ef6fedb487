package controller

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Discovery: the controllers that act on every kind of object (the garbage
// collector, the namespace controller) do not know the kinds in advance: they
// ask the apiserver, as kubectl does, through the discovery documents
//
//	GET /api          → {"versions":["v1"]}
//	GET /api/v1       → the resources of the core group, with verbs and scope
//	GET /apis         → the groups and their preferred versions
//	GET /apis/apps/v1 → the resources of one group version
//
// Upstream: k8s.io/client-go/discovery (ServerPreferredResources) and
// k8s.io/client-go/restmapper.

// ErrGroupDiscoveryFailed is returned with the resources that could be
// discovered when some group versions could not: the callers go on with
// what they have. Upstream: discovery.ErrGroupDiscoveryFailed.
type ErrGroupDiscoveryFailed struct {
	Groups map[string]error // "apps/v1" → why
}

func (e *ErrGroupDiscoveryFailed) Error() string {
	var parts []string
	for gv, err := range e.Groups {
		parts = append(parts, fmt.Sprintf("%s: %v", gv, err))
	}
	sort.Strings(parts)
	return "unable to retrieve the complete list of server APIs: " + strings.Join(parts, ", ")
}

// ServerPreferredResources lists every resource the apiserver serves, in the
// preferred version of each group, subresources left out. Each is a
// scheme.Resource with Group, Version, Resource, Kind, Namespaced and Verbs
// set, usable with client.ResourcePath and client.ListResource.
func ServerPreferredResources(ctx context.Context, c *rest.Client) ([]*scheme.Resource, error) {
	var gvs []string // "v1", "apps/v1", ...
	var versions metav1.APIVersions
	if err := c.Do(ctx, rest.Request{Method: http.MethodGet, Path: "/api"}, &versions); err != nil {
		return nil, err
	}
	gvs = append(gvs, versions.Versions...)
	var groups metav1.APIGroupList
	if err := c.Do(ctx, rest.Request{Method: http.MethodGet, Path: "/apis"}, &groups); err != nil {
		return nil, err
	}
	for _, g := range groups.Groups {
		gv := g.PreferredVersion.GroupVersion
		if gv == "" && len(g.Versions) > 0 {
			gv = g.Versions[0].GroupVersion
		}
		gvs = append(gvs, gv)
	}

	var out []*scheme.Resource
	failed := map[string]error{}
	for _, gv := range gvs {
		path := "/apis/" + gv
		group, version, found := strings.Cut(gv, "/")
		if !found { // the core group: "v1"
			path, group, version = "/api/"+gv, "", gv
		}
		var list metav1.APIResourceList
		if err := c.Do(ctx, rest.Request{Method: http.MethodGet, Path: path}, &list); err != nil {
			failed[gv] = err
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource: pods/status
			}
			out = append(out, &scheme.Resource{Group: group, Version: version, Resource: r.Name,
				Singular: r.SingularName, Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs})
		}
	}
	if len(failed) > 0 {
		return out, &ErrGroupDiscoveryFailed{Groups: failed}
	}
	return out, nil
}

// SupportsAllVerbs keeps the resources that allow every verb in verbs.
// Upstream: discovery.FilteredBy(discovery.SupportsAllVerbs{...}).
func SupportsAllVerbs(resources []*scheme.Resource, verbs ...string) []*scheme.Resource {
	var out []*scheme.Resource
	for _, r := range resources {
		ok := true
		for _, v := range verbs {
			if !slices.Contains(r.Verbs, v) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// RESTMapper finds the resource of an apiVersion and kind, as an
// ownerReference names its owner: ("apps/v1", "ReplicaSet") →
// replicasets.apps. Upstream: meta.RESTMapper.
type RESTMapper struct {
	byKind map[string]*scheme.Resource // "apps/v1/ReplicaSet"
}

// NewRESTMapper indexes discovered resources.
func NewRESTMapper(resources []*scheme.Resource) *RESTMapper {
	m := &RESTMapper{byKind: map[string]*scheme.Resource{}}
	for _, r := range resources {
		m.byKind[r.GroupVersion()+"/"+r.Kind] = r
	}
	return m
}

// ResourceFor returns the resource of apiVersion and kind.
func (m *RESTMapper) ResourceFor(apiVersion, kind string) (*scheme.Resource, error) {
	if r, ok := m.byKind[apiVersion+"/"+kind]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("no matches for kind %q in version %q", kind, apiVersion)
}
