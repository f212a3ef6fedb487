package framework

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/selection"
)

// Resource is an amount of the resources the scheduler counts.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	AllowedPodNumber int64
	// ScalarResources: extended resources (example.com/gpu, hugepages-2Mi).
	ScalarResources map[corev1.ResourceName]int64
}

// NewResource reads a ResourceList.
func NewResource(rl corev1.ResourceList) Resource {
	var r Resource
	r.Add(rl)
	return r
}

// Add adds a ResourceList.
func (r *Resource) Add(rl corev1.ResourceList) {
	for name, q := range rl {
		switch name {
		case corev1.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case corev1.ResourceMemory:
			r.Memory += q.Value()
		case corev1.ResourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		case corev1.ResourcePods:
			r.AllowedPodNumber += q.Value()
		default:
			if isScalar(name) {
				if r.ScalarResources == nil {
					r.ScalarResources = map[corev1.ResourceName]int64{}
				}
				r.ScalarResources[name] += q.Value()
			}
		}
	}
}

// isScalar: extended resources (a domain-prefixed name outside
// kubernetes.io), hugepages and attachable volumes.
func isScalar(name corev1.ResourceName) bool {
	n := string(name)
	if strings.HasPrefix(n, "hugepages-") || strings.HasPrefix(n, "attachable-volumes-") {
		return true
	}
	return strings.Contains(n, "/") && !strings.HasPrefix(n, "kubernetes.io/") && !strings.HasPrefix(n, "requests.")
}

func (r *Resource) AddResource(o Resource) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.EphemeralStorage += o.EphemeralStorage
	r.AllowedPodNumber += o.AllowedPodNumber
	for k, v := range o.ScalarResources {
		if r.ScalarResources == nil {
			r.ScalarResources = map[corev1.ResourceName]int64{}
		}
		r.ScalarResources[k] += v
	}
}

func (r *Resource) SubResource(o Resource) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.EphemeralStorage -= o.EphemeralStorage
	r.AllowedPodNumber -= o.AllowedPodNumber
	for k, v := range o.ScalarResources {
		if r.ScalarResources != nil {
			r.ScalarResources[k] -= v
		}
	}
}

// The requests the scheduler assumes for scoring when a container asks for
// none (upstream: schedutil.DefaultMilliCPURequest, DefaultMemoryRequest).
const (
	DefaultMilliCPURequest int64 = 100
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// PodRequests is what a pod asks of a node, as upstream's
// resourcehelper.PodRequests: pod-level resources when set; otherwise the
// sum of the regular containers and the restartable init containers
// (sidecars), or the largest init container plus the sidecars started
// before it, whichever is larger; plus the pod overhead.
func PodRequests(pod *corev1.Pod) corev1.ResourceList {
	reqs := corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		addList(reqs, c.Resources.Requests)
	}
	restartable := corev1.ResourceList{}
	initMax := corev1.ResourceList{}
	for _, c := range pod.Spec.InitContainers {
		cr := c.Resources.Requests
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addList(reqs, cr) // a sidecar runs as long as the pod
			addList(restartable, cr)
			cr = restartable
		} else {
			tmp := corev1.ResourceList{}
			addList(tmp, cr)
			addList(tmp, restartable) // sidecars started before it still run
			cr = tmp
		}
		maxList(initMax, cr)
	}
	maxList(reqs, initMax)
	if pod.Spec.Resources != nil && len(pod.Spec.Resources.Requests) > 0 {
		// Pod-level resources (PodLevelResources) replace the containers'
		// sum for the resources they name.
		for name, q := range pod.Spec.Resources.Requests {
			if name == corev1.ResourceCPU || name == corev1.ResourceMemory {
				reqs[name] = q
			}
		}
	}
	addList(reqs, pod.Spec.Overhead)
	return reqs
}

// NonZeroRequests is PodRequests with DefaultMilliCPURequest and
// DefaultMemoryRequest for containers that ask for no CPU or memory: a
// BestEffort pod still uses something, and scoring should spread them.
func NonZeroRequests(pod *corev1.Pod) (milliCPU, memory int64) {
	p := *pod // copies of the containers and their requests, defaults filled in
	p.Spec.Containers = append([]corev1.Container(nil), pod.Spec.Containers...)
	p.Spec.InitContainers = append([]corev1.Container(nil), pod.Spec.InitContainers...)
	for _, list := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range list {
			r := &list[i].Resources
			r.Requests = maps.Clone(r.Requests)
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			if _, ok := r.Requests[corev1.ResourceCPU]; !ok {
				r.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(DefaultMilliCPURequest, resource.DecimalSI)
			}
			if _, ok := r.Requests[corev1.ResourceMemory]; !ok {
				r.Requests[corev1.ResourceMemory] = *resource.NewQuantity(DefaultMemoryRequest, resource.BinarySI)
			}
		}
	}
	r := NewResource(PodRequests(&p))
	return r.MilliCPU, r.Memory
}

func addList(dst, src corev1.ResourceList) {
	for name, q := range src {
		cur := dst[name]
		cur.Add(q)
		dst[name] = cur
	}
}

func maxList(dst, src corev1.ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; !ok || q.Cmp(cur) > 0 {
			dst[name] = q
		}
	}
}

// HostPort is one host port a pod uses.
type HostPort struct {
	IP       string
	Protocol corev1.Protocol
	Port     int32
}

// PodHostPorts lists the host ports of a pod's containers.
func PodHostPorts(pod *corev1.Pod) []HostPort {
	var out []HostPort
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for _, p := range c.Ports {
				if p.HostPort <= 0 {
					continue
				}
				hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: p.HostPort}
				if hp.IP == "" {
					hp.IP = "0.0.0.0"
				}
				if hp.Protocol == "" {
					hp.Protocol = corev1.ProtocolTCP
				}
				out = append(out, hp)
			}
		}
	}
	return out
}

// NodeInfo is a node and what the scheduler knows runs on it (the pods
// bound to it, and the ones it assumed there and is still binding).
type NodeInfo struct {
	Node *corev1.Node
	Pods []*corev1.Pod
	// Requested: the sum of the pods' requests. NonZeroRequested: the same
	// with the defaults for pods asking for nothing (for scoring).
	Requested        Resource
	NonZeroRequested Resource
	Allocatable      Resource
	UsedPorts        []HostPort
	// PodsWithAffinity: the pods here with pod affinity or anti-affinity of
	// any kind; PodsWithRequiredAntiAffinity: those with required
	// anti-affinity terms. Their terms are parsed once, when the pod is
	// added, so that InterPodAffinity looks only at these pods and costs
	// nothing on nodes (and clusters) without them.
	PodsWithAffinity             []*PodInfo
	PodsWithRequiredAntiAffinity []*PodInfo
	// ImageSizes: every name of every image in node.status.images, with
	// the image's size in bytes (ImageLocality). Built by SetNode and never
	// modified afterwards, so clones share it. Upstream keeps
	// ImageStates (size and the number of nodes with the image) filled in
	// by the cache; here ImageLocality counts the nodes itself.
	ImageSizes map[string]int64
}

// NewNodeInfo makes the NodeInfo of node with pods on it.
func NewNodeInfo(node *corev1.Node, pods ...*corev1.Pod) *NodeInfo {
	ni := &NodeInfo{}
	ni.SetNode(node)
	for _, p := range pods {
		ni.AddPod(p)
	}
	return ni
}

func (n *NodeInfo) SetNode(node *corev1.Node) {
	n.Node = node
	n.Allocatable = Resource{}
	n.ImageSizes = nil
	if node != nil {
		n.Allocatable = NewResource(node.Status.Allocatable)
		if len(node.Status.Images) > 0 {
			n.ImageSizes = map[string]int64{} // a new map: clones keep the old one
			for _, img := range node.Status.Images {
				for _, name := range img.Names {
					n.ImageSizes[name] = img.SizeBytes
				}
			}
		}
	}
}

func (n *NodeInfo) AddPod(p *corev1.Pod) {
	n.Pods = append(n.Pods, p)
	n.Requested.Add(PodRequests(p))
	cpu, mem := NonZeroRequests(p)
	n.NonZeroRequested.MilliCPU += cpu
	n.NonZeroRequested.Memory += mem
	n.UsedPorts = append(n.UsedPorts, PodHostPorts(p)...)
	if podWithAffinity(p) {
		// A term that does not parse is left out, as upstream's cache
		// does (the apiserver validated the selectors anyway).
		pi, _ := NewPodInfo(p)
		n.PodsWithAffinity = append(n.PodsWithAffinity, pi)
		if len(pi.RequiredAntiAffinityTerms) > 0 {
			n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pi)
		}
	}
}

// RemovePod removes the pod with p's UID and subtracts what it asked for
// (the pod stored on the node, not p: it may be a newer version). Only
// this pod's requests are computed, so removing is cheap however many pods
// the node runs. The slices are copied, never changed in place: a
// snapshot's Clone may share them.
func (n *NodeInfo) RemovePod(p *corev1.Pod) bool {
	for i, q := range n.Pods {
		if q.UID != p.UID {
			continue
		}
		n.Pods = append(n.Pods[:i:i], n.Pods[i+1:]...)
		n.Requested.SubResource(NewResource(PodRequests(q)))
		cpu, mem := NonZeroRequests(q)
		n.NonZeroRequested.MilliCPU -= cpu
		n.NonZeroRequested.Memory -= mem
		n.UsedPorts = removePorts(n.UsedPorts, PodHostPorts(q))
		n.PodsWithAffinity = removePodInfo(n.PodsWithAffinity, q.UID)
		n.PodsWithRequiredAntiAffinity = removePodInfo(n.PodsWithRequiredAntiAffinity, q.UID)
		return true
	}
	return false
}

// removePorts returns used without one occurrence of each of ports.
func removePorts(used, ports []HostPort) []HostPort {
	if len(ports) == 0 {
		return used
	}
	out := append([]HostPort(nil), used...)
	for _, hp := range ports {
		for i, u := range out {
			if u == hp {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
	}
	return out
}

func removePodInfo(list []*PodInfo, uid string) []*PodInfo {
	for i, pi := range list {
		if pi.Pod.UID == uid {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// Clone copies the NodeInfo for one scheduling cycle.
func (n *NodeInfo) Clone() *NodeInfo {
	c := *n
	c.Pods = append([]*corev1.Pod(nil), n.Pods...)
	c.UsedPorts = append([]HostPort(nil), n.UsedPorts...)
	// The PodInfos themselves are never modified: sharing them is safe.
	c.PodsWithAffinity = append([]*PodInfo(nil), n.PodsWithAffinity...)
	c.PodsWithRequiredAntiAffinity = append([]*PodInfo(nil), n.PodsWithRequiredAntiAffinity...)
	c.Requested.ScalarResources = cloneMap(n.Requested.ScalarResources)
	return &c
}

func cloneMap(m map[corev1.ResourceName]int64) map[corev1.ResourceName]int64 {
	if m == nil {
		return nil
	}
	c := make(map[corev1.ResourceName]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (n *NodeInfo) Name() string {
	if n.Node == nil {
		return ""
	}
	return n.Node.Name
}

// QueuedPodInfo is a pod in the scheduling queue.
type QueuedPodInfo struct {
	Pod *corev1.Pod
	// Timestamp: when the pod was last added to the queue (the tie-breaker
	// of PrioritySort).
	Timestamp time.Time
	// Attempts: scheduling attempts so far (the backoff doubles with each).
	Attempts int
	// InitialAttemptTimestamp: when it was first popped.
	InitialAttemptTimestamp time.Time
	// UnschedulablePlugins: the plugins that rejected it last time.
	UnschedulablePlugins map[string]bool
}

// PodPriority is spec.priority, 0 when unset.
func PodPriority(pod *corev1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// Diagnosis says why no node fits a pod.
type Diagnosis struct {
	NodeToStatus NodeToStatus
	// PreFilterMsg: a PreFilter plugin rejected the pod before any node
	// was looked at.
	PreFilterMsg string
	// PostFilterMsg: what PostFilter (preemption) found.
	PostFilterMsg        string
	UnschedulablePlugins map[string]bool
}

// FitError: no node fits. Its message is what users read in the
// FailedScheduling event and the PodScheduled condition, upstream's format:
//
//	0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. preemption: ...
type FitError struct {
	Pod         *corev1.Pod
	NumAllNodes int
	Diagnosis   Diagnosis
}

const (
	// NoNodeAvailableMsg starts every FitError.
	NoNodeAvailableMsg = "0/%v nodes are available"
	separatorFormat    = " %v."
)

func (f *FitError) Error() string {
	msg := fmt.Sprintf(NoNodeAvailableMsg+":", f.NumAllNodes)
	if f.Diagnosis.PreFilterMsg != "" {
		// PreFilter rejected the pod for every node: only its message.
		msg += fmt.Sprintf(separatorFormat, f.Diagnosis.PreFilterMsg)
	} else {
		// A histogram of the reasons, "<count> <reason>", sorted as strings.
		counts := map[string]int{}
		for _, s := range f.Diagnosis.NodeToStatus {
			for _, r := range s.Reasons() {
				counts[r]++
			}
		}
		var parts []string
		for r, n := range counts {
			parts = append(parts, fmt.Sprintf("%v %v", n, r))
		}
		sort.Strings(parts)
		if len(parts) > 0 {
			msg += fmt.Sprintf(separatorFormat, strings.Join(parts, ", "))
		}
	}
	if f.Diagnosis.PostFilterMsg != "" {
		// PostFilter messages end with their own period (since 1.30).
		msg += " " + f.Diagnosis.PostFilterMsg
	}
	return msg
}

// ---- pod (anti-)affinity terms, parsed ----

// AffinityTerm is a PodAffinityTerm with its selectors parsed (upstream:
// framework.AffinityTerm).
type AffinityTerm struct {
	// Namespaces: the term's namespaces; its pod's own namespace when it
	// names none and has no namespaceSelector.
	Namespaces []string
	// Selector: labelSelector, with matchLabelKeys and mismatchLabelKeys
	// merged in. nil selects no pod.
	Selector selection.LabelSelector
	// NamespaceSelector: nil (no selector) selects no namespace, {} every
	// namespace.
	NamespaceSelector selection.LabelSelector
	TopologyKey       string
}

// Matches: pod is in one of the term's namespaces, or in a namespace whose
// labels nsLabels the namespaceSelector selects, and has matching labels.
func (t *AffinityTerm) Matches(pod *corev1.Pod, nsLabels map[string]string) bool {
	if slices.Contains(t.Namespaces, pod.Namespace) || t.NamespaceSelector.Matches(nsLabels) {
		return t.Selector.Matches(pod.Labels)
	}
	return false
}

// WeightedAffinityTerm is a preferred term and its weight.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// PodInfo is a pod with its pod affinity and anti-affinity terms parsed
// (upstream: framework.PodInfo).
type PodInfo struct {
	Pod                        *corev1.Pod
	RequiredAffinityTerms      []AffinityTerm
	RequiredAntiAffinityTerms  []AffinityTerm
	PreferredAffinityTerms     []WeightedAffinityTerm
	PreferredAntiAffinityTerms []WeightedAffinityTerm
}

// NewPodInfo parses pod's affinity terms. On an invalid selector the terms
// of that kind are left out and the error says which.
func NewPodInfo(pod *corev1.Pod) (*PodInfo, error) {
	pi := &PodInfo{Pod: pod}
	a := pod.Spec.Affinity
	if a == nil {
		return pi, nil
	}
	var errs []error
	if pa := a.PodAffinity; pa != nil {
		var err error
		if pi.RequiredAffinityTerms, err = affinityTerms(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			errs = append(errs, fmt.Errorf("requiredAffinityTerms: %w", err))
		}
		if pi.PreferredAffinityTerms, err = weightedAffinityTerms(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			errs = append(errs, fmt.Errorf("preferredAffinityTerms: %w", err))
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		var err error
		if pi.RequiredAntiAffinityTerms, err = affinityTerms(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			errs = append(errs, fmt.Errorf("requiredAntiAffinityTerms: %w", err))
		}
		if pi.PreferredAntiAffinityTerms, err = weightedAffinityTerms(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			errs = append(errs, fmt.Errorf("preferredAntiAffinityTerms: %w", err))
		}
	}
	return pi, errors.Join(errs...)
}

// podWithAffinity: the pod has pod affinity or anti-affinity of any kind
// (upstream's test for NodeInfo.PodsWithAffinity).
func podWithAffinity(p *corev1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

func affinityTerms(pod *corev1.Pod, terms []corev1.PodAffinityTerm) ([]AffinityTerm, error) {
	var out []AffinityTerm
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func weightedAffinityTerms(pod *corev1.Pod, terms []corev1.WeightedPodAffinityTerm) ([]WeightedAffinityTerm, error) {
	var out []WeightedAffinityTerm
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i].PodAffinityTerm)
		if err != nil {
			return nil, err
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
	}
	return out, nil
}

func newAffinityTerm(pod *corev1.Pod, term *corev1.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := selection.FromLabelSelector(withLabelKeys(term, pod.Labels))
	if err != nil {
		return AffinityTerm{}, err
	}
	nsSel, err := selection.FromLabelSelector(term.NamespaceSelector)
	if err != nil {
		return AffinityTerm{}, err
	}
	ns := term.Namespaces
	if len(ns) == 0 && term.NamespaceSelector == nil {
		ns = []string{pod.Namespace}
	}
	return AffinityTerm{Namespaces: ns, Selector: sel, NamespaceSelector: nsSel, TopologyKey: term.TopologyKey}, nil
}

// withLabelKeys merges matchLabelKeys ("key in (the pod's value)") and
// mismatchLabelKeys ("key notin (the pod's value)") into the term's
// labelSelector. Upstream's apiserver does this when the pod is created
// (MatchLabelKeysInPodAffinity); ours does not, so the scheduler does it;
// were both to do it, the duplicate requirement would change nothing.
func withLabelKeys(term *corev1.PodAffinityTerm, podLabels map[string]string) *metav1.LabelSelector {
	if term.LabelSelector == nil || len(term.MatchLabelKeys)+len(term.MismatchLabelKeys) == 0 {
		return term.LabelSelector // nil selects no pod: nothing to merge into
	}
	ls := *term.LabelSelector
	ls.MatchExpressions = slices.Clone(ls.MatchExpressions)
	for _, k := range term.MatchLabelKeys {
		if v, ok := podLabels[k]; ok {
			ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{v}})
		}
	}
	for _, k := range term.MismatchLabelKeys {
		if v, ok := podLabels[k]; ok {
			ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpNotIn, Values: []string{v}})
		}
	}
	return &ls
}

// ---- the whole snapshot, for PreScore ----

// allNodesKey is the CycleState key of the cycle's snapshot of every node.
const allNodesKey = "AllNodes"

// SetAllNodes keeps the cycle's snapshot of every node in state. Upstream
// plugins read it from the framework handle (SnapshotSharedLister); here
// PreFilter is given every node but PreScore only the feasible ones,
// while spreading, inter-pod affinity and image locality scores count what
// runs on every node. The scheduler calls it when a cycle starts.
func SetAllNodes(state *CycleState, nodes []*NodeInfo) { state.Write(allNodesKey, nodes) }

// AllNodes returns the snapshot kept by SetAllNodes, or fallback when
// none was kept.
func AllNodes(state *CycleState, fallback []*NodeInfo) []*NodeInfo {
	if v, ok := state.Read(allNodesKey); ok {
		return v.([]*NodeInfo)
	}
	return fallback
}
