package apiserver

import (
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
)

// Discovery tells clients which resources exist. kubectl cannot do anything
// without it: `kubectl get po` first asks /api and /apis, then (legacy
// discovery) every group version, to learn that "po" means pods in v1.
//
// Two forms, as upstream serves them:
//   - legacy: /api (APIVersions), /apis (APIGroupList), /api/v1 and
//     /apis/<group>/<version> (APIResourceList);
//   - aggregated (one request for everything): /api and /apis answer an
//     APIGroupDiscoveryList when the Accept header asks for it, in exactly the
//     version asked for (kubectl 1.27–1.29 understand only v2beta1; 1.30+ ask
//     for v2 first).

// groupOrder is the order a real apiserver lists its groups in.
var groupOrder = []string{"", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
	"authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy",
	"rbac.authorization.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
	"scheduling.k8s.io", "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "resource.k8s.io", "flowcontrol.apiserver.k8s.io"}

func groupRank(g string) int {
	for i, name := range groupOrder {
		if name == g {
			return i
		}
	}
	return len(groupOrder)
}

// discoveryGroups returns group → versions (in resources' order), groups
// sorted like upstream: the built-in ones in their priority order, then the
// custom resources' groups by name.
func discoveryGroups(resources []*scheme.Resource) ([]string, map[string][]string) {
	versions := map[string][]string{}
	var groups []string
	for _, r := range resources {
		if _, ok := versions[r.Group]; !ok {
			groups = append(groups, r.Group)
		}
		if !contains(versions[r.Group], r.Version) {
			versions[r.Group] = append(versions[r.Group], r.Version)
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groupRank(groups[i]) < groupRank(groups[j]) })
	return groups, versions
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func (s *Server) serverAddresses() []metav1.ServerAddressByClientCIDR {
	return []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0",
		ServerAddress: net.JoinHostPort(s.cfg.AdvertiseAddress, strconv.Itoa(s.cfg.SecurePort))}}
}

// aggregatedVersion returns "v2" or "v2beta1" when the Accept header asks for
// aggregated discovery in that version, else "".
func aggregatedVersion(accept string) string {
	for _, part := range strings.Split(accept, ",") {
		params := mediaParams(part)
		if params["g"] == "apidiscovery.k8s.io" && params["as"] == "APIGroupDiscoveryList" {
			if v := params["v"]; v == "v2" || v == "v2beta1" {
				return v
			}
		}
	}
	return ""
}

// mediaParams parses "application/json;g=x;v=y" into {"": "application/json", "g": "x", "v": "y"}.
func mediaParams(mediaType string) map[string]string {
	out := map[string]string{}
	for i, p := range strings.Split(mediaType, ";") {
		p = strings.TrimSpace(p)
		if i == 0 {
			out[""] = p
			continue
		}
		if k, v, ok := strings.Cut(p, "="); ok {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return out
}

// serveDiscovery answers the discovery paths; it returns false for resource paths.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request, info *RequestInfo) bool {
	if info.IsResourceRequest {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeStatus(w, r, newStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			"the server does not allow this method on the requested resource", nil))
		return true
	}
	resources := s.allResources()
	groups, versions := discoveryGroups(resources)
	// The extension apiservers' groups (aggregator.go).
	groups, versions, remote := s.agg.merge(groups, versions)
	resources = append(slices.Clip(resources), remote...)
	switch {
	case info.APIPrefix == "api" && info.APIVersion == "":
		if v := aggregatedVersion(r.Header.Get("Accept")); v != "" {
			s.writeAggregated(w, v, []string{""}, versions, resources)
			return true
		}
		writeJSON(w, http.StatusOK, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: versions[""], ServerAddressByClientCIDRs: s.serverAddresses()})
	case info.APIPrefix == "apis" && info.APIGroup == "" && info.APIVersion == "":
		named := groups[1:]
		if groups[0] != "" {
			named = groups
		}
		if v := aggregatedVersion(r.Header.Get("Accept")); v != "" {
			s.writeAggregated(w, v, s.agg.aggregatedOrder(named), versions, resources)
			return true
		}
		// /apis/<group> is parsed as group with no version: handled below.
		if g := strings.Trim(strings.TrimPrefix(r.URL.Path, "/apis"), "/"); g != "" {
			return s.serveGroup(w, r, g, versions)
		}
		list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
		for _, g := range named {
			list.Groups = append(list.Groups, apiGroup(g, versions[g]))
		}
		writeJSON(w, http.StatusOK, list)
	default:
		gv := info.APIVersion
		if info.APIGroup != "" {
			gv = info.APIGroup + "/" + info.APIVersion
		}
		list, ok := resourceList(gv, resources)
		if _, known := versions[info.APIGroup]; !known && info.APIPrefix == "apis" {
			notServed(w, r)
			return true
		}
		if !ok || (info.APIPrefix == "api" && info.APIGroup != "") {
			writeStatus(w, r, errNoSuchPath())
			return true
		}
		writeJSON(w, http.StatusOK, list)
	}
	return true
}

func (s *Server) serveGroup(w http.ResponseWriter, r *http.Request, group string, versions map[string][]string) bool {
	vs, ok := versions[group]
	if !ok || group == "" {
		notServed(w, r)
		return true
	}
	g := apiGroup(group, vs)
	g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	writeJSON(w, http.StatusOK, g)
	return true
}

func apiGroup(group string, versions []string) metav1.APIGroup {
	g := metav1.APIGroup{Name: group}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// resourceList is the APIResourceList of one group version, subresources included.
func resourceList(gv string, resources []*scheme.Resource) (metav1.APIResourceList, bool) {
	list := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv, APIResources: []metav1.APIResource{}}
	found := false
	for _, r := range resources {
		if r.GroupVersion() != gv {
			continue
		}
		found = true
		hash := storageVersionHash(r.Group, r.Version, r.Kind)
		if sc := r.Storage; sc != nil {
			g, v := scheme.SplitGroupVersion(sc.APIVersion)
			hash = storageVersionHash(g, v, sc.Kind)
		}
		if r.NotStored {
			hash = ""
		}
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: r.Resource, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories,
			StorageVersionHash: hash,
		})
		for _, sub := range r.Subresources {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: r.Resource + "/" + sub.Name, Namespaced: r.Namespaced, Group: sub.Group, Version: sub.Version,
				Kind: sub.Kind, Verbs: sub.Verbs,
			})
		}
	}
	return list, found
}

// storageVersionHash tells clients when a resource's storage version
// changes (the storage-version migrator uses it): the first 8 bytes of the
// SHA-256 of "group/version/kind" of the stored form (autoscaling/v1
// HorizontalPodAutoscalers hash as autoscaling/v2, the version they are
// stored in), base64-encoded, as upstream computes it.
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// Aggregated discovery documents (apidiscovery.k8s.io/v2 and v2beta1 have the same shape).
type apiGroupDiscoveryList struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct{}            `json:"metadata"`
	Items           []apiGroupDiscovery `json:"items"`
}

type apiGroupDiscovery struct {
	Metadata struct {
		Name string `json:"name,omitempty"` // and no creationTimestamp, as upstream
	} `json:"metadata"`
	Versions []apiVersionDiscovery `json:"versions"`
}

type apiVersionDiscovery struct {
	Version   string                 `json:"version"`
	Resources []apiResourceDiscovery `json:"resources,omitempty"`
	Freshness string                 `json:"freshness"`
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type apiResourceDiscovery struct {
	Resource         string                    `json:"resource"`
	ResponseKind     groupVersionKind          `json:"responseKind"`
	Scope            string                    `json:"scope"`
	SingularResource string                    `json:"singularResource"`
	Verbs            []string                  `json:"verbs"`
	ShortNames       []string                  `json:"shortNames,omitempty"`
	Categories       []string                  `json:"categories,omitempty"`
	Subresources     []apiSubresourceDiscovery `json:"subresources,omitempty"`
}

type apiSubresourceDiscovery struct {
	Subresource  string           `json:"subresource"`
	ResponseKind groupVersionKind `json:"responseKind"`
	Verbs        []string         `json:"verbs"`
}

func (s *Server) writeAggregated(w http.ResponseWriter, version string, groups []string, versions map[string][]string, resources []*scheme.Resource) {
	doc := apiGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/" + version}, Items: []apiGroupDiscovery{}}
	for _, g := range groups {
		var item apiGroupDiscovery
		item.Metadata.Name = g
		for _, v := range versions[g] {
			vd := apiVersionDiscovery{Version: v, Freshness: "Current", Resources: []apiResourceDiscovery{}}
			if s.agg.staleVersion(g, v) {
				// An extension apiserver not (yet) available: the version,
				// no resources (upstream's "Stale").
				vd = apiVersionDiscovery{Version: v, Freshness: "Stale"}
			}
			for _, r := range resources {
				if r.Group != g || r.Version != v {
					continue
				}
				scope := "Cluster"
				if r.Namespaced {
					scope = "Namespaced"
				}
				rd := apiResourceDiscovery{Resource: r.Resource, ResponseKind: groupVersionKind{Kind: r.Kind}, Scope: scope,
					SingularResource: r.Singular, Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories}
				for _, sub := range r.Subresources {
					rd.Subresources = append(rd.Subresources, apiSubresourceDiscovery{Subresource: sub.Name,
						ResponseKind: groupVersionKind{Group: sub.Group, Version: sub.Version, Kind: sub.Kind}, Verbs: sub.Verbs})
				}
				vd.Resources = append(vd.Resources, rd)
			}
			item.Versions = append(item.Versions, vd)
		}
		doc.Items = append(doc.Items, item)
	}
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v="+version+";as=APIGroupDiscoveryList")
	w.Header().Set("Cache-Control", "no-cache, private")
	b, _ := jsonMarshal(doc)
	w.WriteHeader(http.StatusOK)
	w.Write(append(b, '\n'))
}
