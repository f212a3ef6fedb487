package main

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

const (
	benchNamespace = "bench"
	// What each pod requests: small, as scheduler_perf's default pod.
	podCPU    = "100m"
	podMemory = "128Mi"
	// Lease renewal, as the kubelet's defaults (nodeLeaseDurationSeconds
	// 40, renewed every quarter of it).
	leaseDurationSeconds = 40
	leaseRenewInterval   = 10 * time.Second
)

// parallel runs f(0..n-1) on workers goroutines and returns the first error.
func parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if err := f(int(i)); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// setupNamespace creates the namespace of the pods and its default
// ServiceAccount (no controller manager runs), and kube-node-lease in case
// the apiserver has not made it yet.
func setupNamespace(ctx context.Context, c *rest.Client) error {
	for _, ns := range []string{benchNamespace, corev1.NamespaceNodeLease} {
		_, err := rest.Create(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !rest.IsAlreadyExists(err) {
			return err
		}
	}
	_, err := rest.Create(ctx, c, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: benchNamespace}})
	if err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// nodeCapacity is what every fake node offers: 32 CPUs, 256Gi and 110 pods,
// or more when the benchmark's pods would not fit twice over.
func nodeCapacity(nodes, pods int) corev1.ResourceList {
	perNode := int64((pods + nodes - 1) / nodes)
	cpuMilli := max(32000, 2*perNode*resource.MustParse(podCPU).MilliValue())
	memory := max(256<<30, 2*perNode*resource.MustParse(podMemory).Value())
	return corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(cpuMilli, resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(memory, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(max(110, 2*perNode), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
}

func nodeName(i int) string { return fmt.Sprintf("node-%05d", i) }

// createNodes creates n Ready, untainted Nodes (as the administrator: no
// kubelet runs) and their Leases in kube-node-lease; it returns the Leases.
// Their status is never updated: nothing watches heartbeats here.
func createNodes(ctx context.Context, c *rest.Client, n int, capacity corev1.ResourceList) ([]*coordinationv1.Lease, error) {
	leases := make([]*coordinationv1.Lease, n)
	err := parallel(n, 16, func(i int) error {
		name := nodeName(i)
		now := metav1.Now()
		cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason string) corev1.NodeCondition {
			return corev1.NodeCondition{Type: t, Status: s, Reason: reason, LastHeartbeatTime: now, LastTransitionTime: now}
		}
		status := corev1.NodeStatus{
			Capacity: capacity, Allocatable: maps.Clone(capacity),
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady"),
			},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)},
				{Type: corev1.NodeHostName, Address: name}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.35.4", OperatingSystem: "linux", Architecture: "amd64"},
		}
		node, err := rest.Create(ctx, c, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				corev1.LabelHostname: name, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64"}},
			Status: status,
		})
		if err != nil {
			return fmt.Errorf("create node %s: %w", name, err)
		}
		// Upstream's TaintNodesByCondition admission adds the not-ready
		// taint to every new Node; the node lifecycle controller would
		// remove it from a Ready node. None runs here: remove it.
		if len(node.Spec.Taints) > 0 {
			node.Spec.Taints = nil
			if node, err = rest.Update(ctx, c, node); err != nil {
				return fmt.Errorf("node %s: removing the not-ready taint: %w", name, err)
			}
		}
		if len(node.Status.Allocatable) == 0 { // the apiserver dropped the status on create
			node.Status = status
			if _, err := rest.UpdateStatus(ctx, c, node); err != nil {
				return fmt.Errorf("node %s status: %w", name, err)
			}
		}
		holder, dur, renew := name, int32(leaseDurationSeconds), metav1.NowMicro()
		lease, err := rest.Create(ctx, c, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceNodeLease,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: node.UID}}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: &renew},
		})
		if err != nil {
			return fmt.Errorf("create lease %s: %w", name, err)
		}
		leases[i] = lease
		return nil
	})
	return leases, err
}

// leaseRenewer is the nodes' heartbeat: one goroutine that, every
// leaseRenewInterval, PUTs every Lease with a new renewTime, one after
// another (a round that takes longer is followed by the next at once).
type leaseRenewer struct {
	renewals, errors atomic.Int64
	rounds           atomic.Int64
	longestRound     atomic.Int64 // nanoseconds
	done             chan struct{}
}

func renewLeases(ctx context.Context, c *rest.Client, leases []*coordinationv1.Lease) *leaseRenewer {
	r := &leaseRenewer{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			next := time.Now().Add(leaseRenewInterval)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(next)):
			}
			start := time.Now()
			for i, l := range leases {
				if ctx.Err() != nil {
					return
				}
				now := metav1.NowMicro()
				l.Spec.RenewTime = &now
				nl, err := rest.Update(ctx, c, l)
				if rest.IsConflict(err) {
					if nl, err = rest.Get[coordinationv1.Lease](ctx, c, l.Namespace, l.Name); err == nil {
						nl.Spec.RenewTime = &now
						nl, err = rest.Update(ctx, c, nl)
					}
				}
				if err != nil {
					if ctx.Err() == nil {
						r.errors.Add(1)
					}
					continue
				}
				leases[i] = nl
				r.renewals.Add(1)
			}
			r.rounds.Add(1)
			if d := int64(time.Since(start)); d > r.longestRound.Load() {
				r.longestRound.Store(d)
			}
		}
	}()
	return r
}

// benchPod is a pending pod for the default scheduler with small requests.
func benchPod(name string) *corev1.Pod {
	no := false
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: benchNamespace, Labels: map[string]string{"app": "bench"}},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: &no,
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(podCPU), corev1.ResourceMemory: resource.MustParse(podMemory)}}}},
		},
	}
}

// createPods creates pods prefix-00000 … with 16 clients.
func createPods(ctx context.Context, c *rest.Client, prefix string, n int) error {
	return parallel(n, 16, func(i int) error {
		_, err := rest.Create(ctx, c, benchPod(fmt.Sprintf("%s-%05d", prefix, i)))
		return err
	})
}

// createPodsAtRate creates n pods prefix-00000 … at rate pods per second
// (each in its own goroutine, so a slow answer does not hold up the pace)
// and returns when each POST was sent, by pod name.
func createPodsAtRate(ctx context.Context, c *rest.Client, prefix string, n int, rate float64) (map[string]time.Time, error) {
	sent := make(map[string]time.Time, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errc := make(chan error, n)
	start := time.Now()
	for i := range n {
		at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Until(at)):
		}
		name := fmt.Sprintf("%s-%05d", prefix, i)
		wg.Go(func() {
			t := time.Now()
			mu.Lock()
			sent[name] = t
			mu.Unlock()
			if _, err := rest.Create(ctx, c, benchPod(name)); err != nil {
				errc <- err
			}
		})
	}
	wg.Wait()
	close(errc)
	return sent, <-errc
}

// bindWatcher watches the benchmark's pods and notes when it first sees
// each one bound (spec.nodeName set), and where.
type bindWatcher struct {
	mu    sync.Mutex
	bound map[string]binding
	err   error
}

type binding struct {
	at   time.Time
	node string
}

// boundPod is the part of a pod the watch reads. Decoding only it keeps
// this program's CPU low: it shares the machine's cores with the
// scheduler, the apiserver and etcd, so whatever it spends is taken from
// the schedulers being compared.
type boundPod struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	meta metav1.ObjectMeta // only to satisfy metav1.Object
}

func (p *boundPod) GetTypeMeta() *metav1.TypeMeta     { return &p.TypeMeta }
func (p *boundPod) GetObjectMeta() *metav1.ObjectMeta { return &p.meta }

// watchBindings starts watching the pods of the benchmark's namespace from
// the current resourceVersion, until ctx ends; a watch the server ends is
// resumed where it stopped.
func watchBindings(ctx context.Context, c *rest.Client) (*bindWatcher, error) {
	list, err := rest.List[corev1.Pod](ctx, c, benchNamespace, rest.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	bw := &bindWatcher{bound: map[string]binding{}}
	rv := list.ResourceVersion
	podsResource := scheme.Lookup("", "v1", "pods")
	w, err := rest.WatchResource[boundPod](ctx, c, podsResource, benchNamespace, rest.ListOptions{ResourceVersion: rv})
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			for ev := range w.ResultChan() {
				now := time.Now()
				if ev.Type == "ERROR" {
					bw.mu.Lock()
					bw.err = fmt.Errorf("watch: %v", ev.Err)
					bw.mu.Unlock()
					w.Stop()
					return
				}
				if ev.Object == nil {
					continue
				}
				rv = ev.Object.Metadata.ResourceVersion
				if ev.Object.Spec.NodeName == "" {
					continue
				}
				bw.mu.Lock()
				if _, ok := bw.bound[ev.Object.Metadata.Name]; !ok {
					bw.bound[ev.Object.Metadata.Name] = binding{at: now, node: ev.Object.Spec.NodeName}
				}
				bw.mu.Unlock()
			}
			w.Stop()
			if ctx.Err() != nil {
				return
			}
			if w, err = rest.WatchResource[boundPod](ctx, c, podsResource, benchNamespace, rest.ListOptions{ResourceVersion: rv}); err != nil {
				bw.mu.Lock()
				bw.err = fmt.Errorf("re-watch: %w", err)
				bw.mu.Unlock()
				return
			}
		}
	}()
	return bw, nil
}

// count is how many of names are bound.
func (bw *bindWatcher) count(names []string) (int, error) {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	n := 0
	for _, name := range names {
		if _, ok := bw.bound[name]; ok {
			n++
		}
	}
	return n, bw.err
}

// wait blocks until all of names are bound, the process p exits or timeout
// passes; it returns how many are bound.
func (bw *bindWatcher) wait(ctx context.Context, names []string, p *testenv.Proc, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		n, err := bw.count(names)
		switch {
		case err != nil:
			return n, err
		case n == len(names):
			return n, nil
		case p.Exited():
			return n, fmt.Errorf("%s exited (log: %s)", p.Name, p.LogPath)
		case time.Now().After(deadline):
			return n, fmt.Errorf("%d of %d pods bound after %v", n, len(names), timeout)
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// get returns the bindings of names (those seen).
func (bw *bindWatcher) get(names []string) []binding {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	out := make([]binding, 0, len(names))
	for _, name := range names {
		if b, ok := bw.bound[name]; ok {
			out = append(out, b)
		}
	}
	return out
}

func podNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%05d", prefix, i)
	}
	return names
}
