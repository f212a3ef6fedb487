// Package hollownode is a SIMULATED kubelet, as upstream's kubemark "hollow
// node": it registers a Node, keeps it Ready, renews its Lease and reports
// the pods bound to it as Running — but it runs no containers at all. Nothing
// listens on its addresses (unless Config.KubeletAPI asks for a minimal
// kubelet API with simulated resource metrics: kubeletapi.go); its pod IPs
// are data, not interfaces.
//
// Chapter 3 needs nodes for the scheduler to choose between, and a real
// kubelet only arrives in chapter 5. A hollow node behaves, seen from the
// apiserver, like a kubelet: it uses only the API, with its own identity
// system:node:<name> (so the Node authorizer and NodeRestriction admission
// check it exactly as they check a kubelet), and writes what a kubelet writes:
//
//   - the Node, with capacity, allocatable, nodeInfo, addresses and the
//     Ready, MemoryPressure, DiskPressure and PIDPressure conditions;
//   - its Lease in kube-node-lease, renewed every 10 s (the heartbeat the
//     node lifecycle controller of chapter 4 watches);
//   - the status of the pods bound to it (an informer on
//     fieldSelector=spec.nodeName=<name>): phase Running, a pod IP from the
//     node's podCIDR, running and ready containers, each with the
//     resources it was given (containerStatuses[].resources) and
//     status.observedGeneration;
//   - in-place resizes (a patch of pods/<name>/resize): the new resources
//     in the containers' statuses when the pod still fits the node, a
//     PodResizePending condition (Infeasible or Deferred) when not (see
//     resize.go);
//   - the end of a graceful deletion: once a pod has a deletionTimestamp, it
//     "stops the containers" (nothing to stop) and deletes it with grace 0.
//
// Two SIMULATION knobs stand in for what only real containers and real
// failures would show (chapter 4's Job controller and node lifecycle
// controller need both):
//
//   - a pod whose restartPolicy is Never or OnFailure and whose first
//     container's command line (command + args) is true, false,
//     `sh -c "exit N"` or `/bin/sh -c "exit N"` "exits" SimulatedRunTime
//     after it was reported Running: phase Succeeded with exit code 0, or
//     Failed with exit code 1 (false) or N, as the real command would (so a
//     Job of `sh -c "exit 0"` completes). Every other command runs forever,
//     whatever it would do on a real node. (A non-zero exit under OnFailure
//     would restart the container in place on a real kubelet; here the pod
//     keeps running.)
//   - the annotation kubik.io/simulate-kubelet-stopped="true" on the Node
//     (AnnotationSimulateStopped: kubectl annotate node hollow-node-2
//     kubik.io/simulate-kubelet-stopped=true) makes the hollow kubelet fall
//     silent, as if its machine lost power: no Lease renewals, no Node or
//     pod status. Removing the annotation brings it back (it re-posts a Ready
//     status). The annotation is read at each Lease renewal.
//
// Every hollow node carries the label kubik.io/hollow-node=true and an
// annotation saying it is a simulation; its runtime is "hollow://".
//
// Upstream: cmd/kubemark and pkg/kubemark (a real kubelet over a fake
// container runtime); the Node status (package nodestatus, shared with
// chapter 5's kubelet) and Lease code of pkg/kubelet.
package hollownode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"kubik/ch01-apiserver/version"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/clientgo/nodelease"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch03-scheduler/nodestatus"
)

const (
	// LabelHollowNode marks a simulated node (and lets a nodeSelector avoid
	// or pick them).
	LabelHollowNode = "kubik.io/hollow-node"
	// AnnotationSimulation tells whoever reads the Node what it is.
	AnnotationSimulation = "kubik.io/simulation"

	KubeletVersion = version.Version + "-hollow"
	RuntimeVersion = "hollow://1.0.0"

	// LeaseDurationSeconds and the renew interval are the kubelet's defaults.
	LeaseDurationSeconds = nodelease.DurationSeconds
	LeaseRenewInterval   = nodelease.RenewInterval
	// AnnotationSimulateStopped on a Node silences its hollow kubelet (see
	// the package comment). SIMULATION only.
	AnnotationSimulateStopped = "kubik.io/simulate-kubelet-stopped"
	// SimulatedRunTime is how long a pod whose command exits (true, false,
	// sh -c "exit N") runs.
	SimulatedRunTime = time.Second

	// StatusReportInterval is how often the Node's status is written when
	// nothing changed (the kubelet's nodeStatusReportFrequency); the Lease is
	// the frequent heartbeat.
	StatusReportInterval = 5 * time.Minute
)

// Config describes one hollow node.
type Config struct {
	Name       string
	Kubeconfig string // its own identity: system:node:<Name> in group system:nodes
	CPU        string // capacity, e.g. "4"
	Memory     string // e.g. "8Gi"
	Pods       int    // e.g. 110
	Labels     map[string]string
	Taints     []corev1.Taint // registered with (--register-with-taints)
	PodCIDR    string         // pod IPs are taken from here, e.g. 10.244.1.0/24
	// InternalIP is the node's address, only data: nothing listens there.
	// Give a loopback address (cluster3 uses 127.0.1.N): an address the
	// machine could route would send `kubectl exec` and friends off it.
	// Default: 127.0.1.1.
	InternalIP string
	// KubeletAPI, when set, serves a minimal kubelet API with SIMULATED
	// resource metrics on InternalIP (kubeletapi.go); nil: nothing listens
	// and the Node reports no kubelet port.
	KubeletAPI *KubeletAPI
	Logger     *slog.Logger
}

// node is one running hollow node.
type node struct {
	cfg    Config
	c      *rest.Client
	log    *slog.Logger
	cidr   netip.Prefix
	pods   *cache.Informer[corev1.Pod, *corev1.Pod]
	queue  *workqueue.RateLimitingQueue[string]
	booted metav1.Time

	kubeletPort int32      // the kubelet API's port; 0: none
	sim         *simulated // the simulated usage the kubelet API reports

	mu      sync.Mutex
	ips     map[string]string // pod UID -> IP
	stopped bool              // AnnotationSimulateStopped is set: silent
}

func (n *node) isStopped() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stopped
}

// Run registers the node and simulates its kubelet until ctx ends.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Name == "" || cfg.Kubeconfig == "" {
		return errors.New("hollownode: Name and Kubeconfig are required")
	}
	cidr, err := netip.ParsePrefix(cfg.PodCIDR)
	if err != nil {
		return fmt.Errorf("hollownode %s: podCIDR: %w", cfg.Name, err)
	}
	if cfg.InternalIP == "" {
		cfg.InternalIP = "127.0.1.1"
	}
	if cfg.Pods == 0 {
		cfg.Pods = 110
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "hollow-node", "node", cfg.Name)
	c, err := rest.New(cfg.Kubeconfig, "kubelet/"+KubeletVersion+" (hollow-node/"+cfg.Name+")")
	if err != nil {
		return err
	}
	n := &node{cfg: cfg, c: c, log: log, cidr: cidr.Masked(), ips: map[string]string{}, booted: metav1.Now(),
		queue: workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]())}

	var api net.Listener
	if cfg.KubeletAPI != nil {
		if api, err = n.listenKubeletAPI(); err != nil {
			return err
		}
		defer api.Close()
	}
	if err := n.register(ctx); err != nil {
		return err
	}
	log.Info("SIMULATED node registered: no containers run here", "podCIDR", cfg.PodCIDR, "internalIP", cfg.InternalIP,
		"cpu", cfg.CPU, "memory", cfg.Memory, "pods", cfg.Pods)

	// The pods bound to this node, and nothing else (the Node authorizer
	// allows a kubelet exactly this list).
	n.pods = cache.New[corev1.Pod](c, cache.Options{FieldSelector: "spec.nodeName=" + cfg.Name, Logger: log})
	n.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    func(p *corev1.Pod) { n.queue.Add(cache.MetaNamespaceKeyFunc(p)) },
		UpdateFunc: func(_, p *corev1.Pod) { n.queue.Add(cache.MetaNamespaceKeyFunc(p)) },
		DeleteFunc: func(p *corev1.Pod) {
			n.queue.Add(cache.MetaNamespaceKeyFunc(p))
			n.retryDeferredResizes() // its resources are free again
		},
	})
	go n.pods.Run(ctx)
	if api != nil {
		go n.runKubeletAPI(ctx, api)
	}
	go func() { <-ctx.Done(); n.queue.ShutDown() }()
	go n.heartbeat(ctx)
	for n.processNext(ctx) {
	}
	return nil
}

// ---- the Node and its Lease ----

func (n *node) labels() map[string]string {
	l := map[string]string{
		corev1.LabelHostname:   n.cfg.Name,
		corev1.LabelOSStable:   "linux",
		corev1.LabelArchStable: "amd64",
		LabelHollowNode:        "true",
	}
	maps.Copy(l, n.cfg.Labels)
	return l
}

func (n *node) status() corev1.NodeStatus {
	res := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(n.cfg.CPU),
		corev1.ResourceMemory:           resource.MustParse(n.cfg.Memory),
		corev1.ResourcePods:             *resource.NewQuantity(int64(n.cfg.Pods), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	return nodestatus.Status(nodestatus.Node{
		Capacity:   res,
		InternalIP: n.cfg.InternalIP,
		Hostname:   n.cfg.Name,
		// No kubelet API (unless KubeletAPI): the apiserver answers exec,
		// logs and port-forward for this node's pods with an error instead
		// of dialing.
		KubeletPort: n.kubeletPort,
		Info: corev1.NodeSystemInfo{
			MachineID: "hollow-" + n.cfg.Name, SystemUUID: "hollow-" + n.cfg.Name, BootID: "hollow-" + n.cfg.Name,
			KernelVersion: "hollow", OSImage: "Kubik hollow node (simulated)",
			ContainerRuntimeVersion: RuntimeVersion, KubeletVersion: KubeletVersion,
			OperatingSystem: "linux", Architecture: "amd64",
		},
		Ready:        true,
		ReadyMessage: nodestatus.ReadyMessage + " (hollow node: simulated)",
	}, metav1.Now(), func(corev1.NodeConditionType, corev1.ConditionStatus) metav1.Time {
		return n.booted // the conditions have not changed since the node came up
	})
}

// register creates the Node (or takes over the existing one after a
// restart) and writes its status.
func (n *node) register(ctx context.Context) error {
	obj := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.cfg.Name, Labels: n.labels(), Annotations: map[string]string{
			AnnotationSimulation: "hollow node: a simulated kubelet, no containers run here",
		}},
		Spec: corev1.NodeSpec{PodCIDR: n.cfg.PodCIDR, PodCIDRs: []string{n.cfg.PodCIDR},
			ProviderID: "hollow://" + n.cfg.Name, Taints: n.cfg.Taints},
	}
	return retry(ctx, n.log, "register node", func() error {
		_, err := rest.Create(ctx, n.c, obj)
		if err != nil && !rest.IsAlreadyExists(err) {
			return err
		}
		return n.updateStatus(ctx)
	})
}

func (n *node) updateStatus(ctx context.Context) error {
	cur, err := rest.Get[corev1.Node](ctx, n.c, "", n.cfg.Name)
	if err != nil {
		return err
	}
	cur.Status = n.status()
	_, err = rest.UpdateStatus(ctx, n.c, cur)
	return err
}

// heartbeat renews the Lease every LeaseRenewInterval and rewrites the
// Node's status every StatusReportInterval.
func (n *node) heartbeat(ctx context.Context) {
	lease := time.NewTicker(LeaseRenewInterval)
	defer lease.Stop()
	status := time.NewTicker(StatusReportInterval)
	defer status.Stop()
	for {
		n.checkSimulatedStop(ctx)
		if n.isStopped() {
			// SIMULATED power loss: nothing is written.
		} else if err := n.renewLease(ctx); err != nil && ctx.Err() == nil {
			n.log.Warn("cannot renew node lease", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-status.C:
			if n.isStopped() {
				continue
			}
			if err := n.updateStatus(ctx); err != nil && ctx.Err() == nil {
				n.log.Warn("cannot update node status", "err", err)
			}
		case <-lease.C:
		}
	}
}

// checkSimulatedStop reads the Node's AnnotationSimulateStopped. On
// resuming, the node posts its status at once and looks at its pods again.
func (n *node) checkSimulatedStop(ctx context.Context) {
	obj, err := rest.Get[corev1.Node](ctx, n.c, "", n.cfg.Name)
	if err != nil {
		return
	}
	stop := obj.Annotations[AnnotationSimulateStopped] == "true"
	n.mu.Lock()
	was := n.stopped
	n.stopped = stop
	n.mu.Unlock()
	switch {
	case stop && !was:
		n.log.Warn("SIMULATED kubelet stop: no more lease renewals or status updates", "annotation", AnnotationSimulateStopped)
	case !stop && was:
		n.log.Info("SIMULATED kubelet resumed")
		if err := n.updateStatus(ctx); err != nil {
			n.log.Warn("cannot update node status", "err", err)
		}
		for _, p := range n.pods.GetStore().List() {
			n.queue.Add(cache.MetaNamespaceKeyFunc(p))
		}
	}
}

func (n *node) renewLease(ctx context.Context) error {
	return nodelease.Renew(ctx, n.c, n.cfg.Name)
}

// ---- pods ----

func (n *node) processNext(ctx context.Context) bool {
	key, shutdown := n.queue.Get()
	if shutdown {
		return false
	}
	defer n.queue.Done(key)
	if err := n.syncPod(ctx, key); err != nil {
		if ctx.Err() != nil {
			return false
		}
		n.log.Warn("pod sync failed; retrying", "pod", key, "err", err)
		n.queue.AddRateLimited(key)
		return true
	}
	n.queue.Forget(key)
	return true
}

// syncPod is the hollow kubelet's whole pod lifecycle: start (report
// Running), resize in place, "exit" (simulatedExit), and finish a graceful
// deletion.
func (n *node) syncPod(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	pod, ok := n.pods.GetStore().Get(ns, name)
	if !ok {
		return nil // gone; its IP is released by releaseIPs
	}
	if n.isStopped() {
		return nil // SIMULATED power loss: the pods are left as they are
	}
	switch {
	case pod.DeletionTimestamp != nil:
		// "Kill the containers" (there are none), then remove the pod for
		// good: the kubelet's final delete with grace period 0, guarded by
		// the pod's UID so that a new pod of the same name is untouched.
		zero := int64(0)
		uid := pod.UID
		err := rest.Delete[corev1.Pod](ctx, n.c, ns, name, &metav1.DeleteOptions{GracePeriodSeconds: &zero,
			Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !rest.IsNotFound(err) && !rest.IsConflict(err) {
			return err
		}
		n.releaseIP(string(uid))
		n.log.Info("SIMULATED pod stopped and deleted", "pod", key)
		return nil
	case pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed:
		return nil
	case pod.Status.Phase == corev1.PodRunning && pod.Status.PodIP != "":
		n.keepIP(string(pod.UID), pod.Status.PodIP) // after a restart: keep what was given out
		if exitCode, ok := simulatedExit(pod); ok {
			return n.finishPod(ctx, key, pod, exitCode)
		}
		if resizeRequested(pod) || pendingResize(pod) != nil {
			return n.syncResize(ctx, key, pod)
		}
		if !podReady(pod) {
			// The node lifecycle controller marked the pod not ready while
			// this kubelet was silent; a kubelet's status manager writes
			// back what it sees: the containers run and are ready.
			return n.restoreReady(ctx, key, pod)
		}
		return nil
	}
	p := *pod // the cache's object must not be modified
	ip, err := n.podIP(&p)
	if err != nil {
		return err
	}
	p.Status = runningStatus(&p, n.cfg.InternalIP, ip, metav1.Now())
	if _, err := rest.UpdateStatus(ctx, n.c, &p); err != nil {
		if rest.IsNotFound(err) {
			n.releaseIP(string(p.UID))
			return nil
		}
		return err
	}
	n.log.Info("SIMULATED pod running", "pod", key, "podIP", ip)
	if _, ok := simulatedExit(&p); ok {
		n.queue.AddAfter(key, SimulatedRunTime)
	}
	return nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// restoreReady sets the Ready and ContainersReady conditions and the
// containers' ready flags back to true, keeping everything else (IDs,
// start times: the containers never stopped).
func (n *node) restoreReady(ctx context.Context, key string, pod *corev1.Pod) error {
	p := *pod
	now := metav1.Now()
	p.Status.Conditions = append([]corev1.PodCondition(nil), pod.Status.Conditions...)
	for i, c := range p.Status.Conditions {
		if (c.Type == corev1.PodReady || c.Type == corev1.ContainersReady) && c.Status != corev1.ConditionTrue {
			p.Status.Conditions[i] = corev1.PodCondition{Type: c.Type, Status: corev1.ConditionTrue, LastTransitionTime: now}
		}
	}
	p.Status.ContainerStatuses = append([]corev1.ContainerStatus(nil), pod.Status.ContainerStatuses...)
	for i := range p.Status.ContainerStatuses {
		p.Status.ContainerStatuses[i].Ready = true
	}
	if _, err := rest.UpdateStatus(ctx, n.c, &p); err != nil && !rest.IsNotFound(err) {
		return err
	}
	n.log.Info("SIMULATED pod ready again", "pod", key)
	return nil
}

// finishPod reports the pod's containers exited (SimulatedRunTime after
// it started): Succeeded with exit code 0, Failed otherwise, as the
// kubelet's status for a finished pod reads.
func (n *node) finishPod(ctx context.Context, key string, pod *corev1.Pod, exitCode int32) error {
	if pod.Status.StartTime != nil {
		if left := time.Until(pod.Status.StartTime.Add(SimulatedRunTime)); left > 0 {
			n.queue.AddAfter(key, left)
			return nil
		}
	}
	p := *pod
	p.Status = finishedStatus(pod, exitCode, metav1.Now())
	if _, err := rest.UpdateStatus(ctx, n.c, &p); err != nil {
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	}
	n.releaseIP(string(p.UID))
	n.log.Info("SIMULATED pod finished", "pod", key, "phase", p.Status.Phase, "exitCode", exitCode)
	n.retryDeferredResizes()
	return nil
}

// finishedStatus is a terminated pod's status: every container terminated
// (reason Completed or Error), Ready and ContainersReady False with reason
// PodCompleted (or PodFailed).
func finishedStatus(p *corev1.Pod, exitCode int32, now metav1.Time) corev1.PodStatus {
	st := p.Status
	st.ObservedGeneration = p.Generation
	phase, reason, condReason := corev1.PodSucceeded, "Completed", "PodCompleted"
	if exitCode != 0 {
		phase, reason, condReason = corev1.PodFailed, "Error", "PodFailed"
	}
	st.Phase = phase
	st.Conditions = nil
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady || c.Type == corev1.ContainersReady || c.Type == corev1.PodReadyToStartContainers {
			c.Status, c.Reason, c.LastTransitionTime = corev1.ConditionFalse, condReason, now
			if c.Type == corev1.PodReadyToStartContainers {
				c.Reason = ""
			}
		}
		st.Conditions = append(st.Conditions, c)
	}
	st.ContainerStatuses = nil
	for _, cs := range p.Status.ContainerStatuses {
		started := false
		var startedAt metav1.Time
		if cs.State.Running != nil {
			startedAt = cs.State.Running.StartedAt
		}
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: reason,
			StartedAt: startedAt, FinishedAt: now, ContainerID: cs.ContainerID}}
		cs.Ready, cs.Started = false, &started
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	return st
}

// podIP gives the pod an address of the node's podCIDR (.2 onwards; .1 is
// the node's bridge on a real node), or the node's own for hostNetwork pods.
func (n *node) podIP(p *corev1.Pod) (string, error) {
	if p.Spec.HostNetwork {
		return n.cfg.InternalIP, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if ip, ok := n.ips[string(p.UID)]; ok {
		return ip, nil
	}
	used := map[string]bool{}
	for _, ip := range n.ips {
		used[ip] = true
	}
	for _, other := range n.pods.GetStore().List() { // addresses given out before a restart
		if other.Status.PodIP != "" {
			used[other.Status.PodIP] = true
		}
	}
	for a := n.cidr.Addr().Next().Next(); n.cidr.Contains(a); a = a.Next() {
		if s := a.String(); !used[s] && a.Next().IsValid() && n.cidr.Contains(a.Next()) { // skip broadcast
			n.ips[string(p.UID)] = s
			return s, nil
		}
	}
	return "", fmt.Errorf("no free pod IP in %s", n.cidr)
}

func (n *node) keepIP(uid, ip string) {
	n.mu.Lock()
	n.ips[uid] = ip
	n.mu.Unlock()
}

func (n *node) releaseIP(uid string) {
	n.mu.Lock()
	delete(n.ips, uid)
	n.mu.Unlock()
}

// runningStatus is the status a kubelet reports once all of a pod's
// containers run and are ready (no probes are simulated).
func runningStatus(p *corev1.Pod, hostIP, podIP string, now metav1.Time) corev1.PodStatus {
	st := p.Status
	st.Phase = corev1.PodRunning
	st.ObservedGeneration = p.Generation
	st.HostIP, st.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
	st.PodIP, st.PodIPs = podIP, []corev1.PodIP{{IP: podIP}}
	if st.StartTime == nil {
		st.StartTime = &now
	}
	scheduled := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			scheduled = c
			scheduled.Status = corev1.ConditionTrue
			scheduled.Reason, scheduled.Message = "", ""
		}
	}
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now}
	}
	st.Conditions = []corev1.PodCondition{cond(corev1.PodReadyToStartContainers), cond(corev1.PodInitialized),
		cond(corev1.PodReady), cond(corev1.ContainersReady), scheduled}

	started := true
	st.InitContainerStatuses = nil
	for _, c := range p.Spec.InitContainers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "hollow://" + c.Image, ContainerID: containerID()}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways { // a sidecar: keeps running
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
			cs.Ready, cs.Started = true, &started
			cs.Resources = containerResources(c)
		} else {
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
				StartedAt: now, FinishedAt: now, ContainerID: cs.ContainerID}
			cs.Ready, cs.Started = true, new(bool)
		}
		st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
	}
	st.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "hollow://" + c.Image, ContainerID: containerID(),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			Ready: true, Started: &started, Resources: containerResources(c),
		})
	}
	return st
}

func containerID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "hollow://" + hex.EncodeToString(b)
}

// retry runs f until it succeeds or ctx ends, backing off from 200ms to 5s.
func retry(ctx context.Context, log *slog.Logger, what string, f func() error) error {
	backoff := 200 * time.Millisecond
	for {
		err := f()
		if err == nil {
			return nil
		}
		log.Warn(what+" failed; retrying", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}
