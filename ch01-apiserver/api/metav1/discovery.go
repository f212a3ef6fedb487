package metav1

// APIVersions is the answer to GET /api (legacy discovery).
type APIVersions struct {
	TypeMeta                   `json:",inline"`
	Versions                   []string                    `json:"versions"`
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR tells clients in a CIDR which address to use.
type ServerAddressByClientCIDR struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

// APIGroupList is the answer to GET /apis (legacy discovery).
type APIGroupList struct {
	TypeMeta `json:",inline"`
	Groups   []APIGroup `json:"groups"`
}

// APIGroup is one API group and its versions.
type APIGroup struct {
	TypeMeta                   `json:",inline"`
	Name                       string                      `json:"name"`
	Versions                   []GroupVersionForDiscovery  `json:"versions"`
	PreferredVersion           GroupVersionForDiscovery    `json:"preferredVersion,omitempty"`
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty"`
}

// GroupVersionForDiscovery is "apps/v1" with its version "v1".
type GroupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

// APIResourceList is the answer to GET /api/v1 or /apis/<group>/<version>.
type APIResourceList struct {
	TypeMeta     `json:",inline"`
	GroupVersion string        `json:"groupVersion"`
	APIResources []APIResource `json:"resources"`
}

// APIResource describes one resource or subresource of a group version.
type APIResource struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}
