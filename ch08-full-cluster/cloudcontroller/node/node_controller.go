// Package node is the cloud node controller (cloud-node-controller, alias
// "cloud-node"): it fills in what only the cloud knows about a Node.
//
// In plain words. A kubelet started with --cloud-provider=external
// registers its Node with the taint
// node.cloudprovider.kubernetes.io/uninitialized:NoSchedule, and nothing is
// scheduled there until this controller has asked the cloud about the
// machine (InstanceMetadata) and written, in one update,
//
//   - spec.providerID (kubik://node-1 for Kubik's provider), if unset;
//   - the labels node.kubernetes.io/instance-type, topology.kubernetes.io/zone
//     and .../region (with their beta forerunners), and the provider's own;
//   - the Node without the uninitialized taint;
//
// then status.addresses from the cloud (keeping the kubelet's Hostname if
// the cloud has none), and the event Synced "Node synced successfully".
// Every --node-status-update-frequency (5 min) it refreshes the addresses
// of the initialized Nodes; for a Node already initialized an update only
// copies a beta zone, region or instance-type label to its GA name.
//
// Upstream: k8s.io/cloud-provider/controllers/node (node_controller.go),
// without the alpha.kubernetes.io/provided-node-ip annotation (Kubik's
// kubelet sets the addresses itself and never writes it).
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/record"
	"kubik/ch08-full-cluster/cloudcontroller/nodehelpers"
	"kubik/ch08-full-cluster/cloudprovider"
)

// ControllerName is the source of the controller's events.
const ControllerName = "cloud-node-controller"

// updateNodeSpecRetries: upstream's UpdateNodeSpecBackoff has 20 steps.
const updateNodeSpecRetries = 20

// labelReconcileInfo: the beta label (primary) is copied to its GA name.
var labelReconcileInfo = []struct{ primaryKey, secondaryKey string }{
	{corev1.LabelFailureDomainBetaZone, corev1.LabelTopologyZone},
	{corev1.LabelFailureDomainBetaRegion, corev1.LabelTopologyRegion},
	{corev1.LabelInstanceType, corev1.LabelInstanceTypeStable},
}

// k8sNamespaceRegex matches label keys a provider may not set.
var k8sNamespaceRegex = regexp.MustCompile(`(^|\.)(kubernetes|k8s)\.io/`)

// CloudNodeController initializes Nodes from the cloud. Upstream: the same name.
type CloudNodeController struct {
	client                    *rest.Client
	nodes                     *cache.Informer[corev1.Node, *corev1.Node]
	instances                 cloudprovider.InstancesV2
	recorder                  *record.Recorder
	log                       *slog.Logger
	nodeStatusUpdateFrequency time.Duration
	workerCount               int
	workqueue                 *workqueue.RateLimitingQueue[string]
}

// NewCloudNodeController fails when the cloud has no instances.
func NewCloudNodeController(cc *controller.ControllerContext, cloud cloudprovider.Interface, nodeStatusUpdateFrequency time.Duration, workerCount int) (*CloudNodeController, error) {
	instances, ok := cloud.InstancesV2()
	if !ok {
		return nil, errors.New("cloud provider does not support instances")
	}
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	cnc := &CloudNodeController{client: cc.Client, instances: instances, log: log,
		nodeStatusUpdateFrequency: nodeStatusUpdateFrequency, workerCount: max(workerCount, 1),
		nodes:     controller.InformerFor[corev1.Node](cc.Informers),
		recorder:  record.NewRecorder(cc.Client, ControllerName, log),
		workqueue: workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
	}
	cnc.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc:    func(n *corev1.Node) { cnc.workqueue.Add(n.Name) },
		UpdateFunc: func(_, n *corev1.Node) { cnc.workqueue.Add(n.Name) },
	})
	return cnc, nil
}

// Run starts the workers and the periodic address refresh until ctx ends.
func (cnc *CloudNodeController) Run(ctx context.Context) {
	defer cnc.workqueue.ShutDown()
	go cnc.recorder.Run(ctx)
	if !cache.WaitForCacheSync(ctx, cnc.nodes.HasSynced) {
		cnc.log.Error("failed to wait for caches to sync")
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if err := cnc.UpdateNodeStatus(ctx); err != nil {
				cnc.log.Error("failed to update node status", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(cnc.nodeStatusUpdateFrequency):
			}
		}
	})
	for range cnc.workerCount {
		wg.Go(func() {
			for cnc.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	cnc.workqueue.ShutDown()
	wg.Wait()
}

func (cnc *CloudNodeController) processNextWorkItem(ctx context.Context) bool {
	key, quit := cnc.workqueue.Get()
	if quit {
		return false
	}
	defer cnc.workqueue.Done(key)
	if err := cnc.syncNode(ctx, key); err != nil {
		if ctx.Err() == nil {
			cnc.log.Info("error syncing, requeuing", "node", key, "err", err)
		}
		cnc.workqueue.AddRateLimited(key)
		return true
	}
	cnc.workqueue.Forget(key)
	return true
}

// UpdateNodeStatus refreshes the addresses of every initialized Node.
func (cnc *CloudNodeController) UpdateNodeStatus(ctx context.Context) error {
	nodes := cnc.nodes.GetStore().List()
	var wg sync.WaitGroup
	sem := make(chan struct{}, cnc.workerCount)
	for _, node := range nodes {
		if getCloudTaint(node.Spec.Taints) != nil {
			continue // syncNode's
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			meta, err := cnc.instances.InstanceMetadata(ctx, node)
			if err != nil {
				cnc.log.Error("Error getting instance metadata for node addresses", "node", node.Name, "err", err)
				return
			}
			cnc.updateNodeAddress(ctx, node, meta)
		})
	}
	wg.Wait()
	return nil
}

// updateNodeAddress writes the cloud's addresses to an initialized Node,
// if they differ from its status.
func (cnc *CloudNodeController) updateNodeAddress(ctx context.Context, node *corev1.Node, meta *cloudprovider.InstanceMetadata) {
	if getCloudTaint(node.Spec.Taints) != nil {
		return
	}
	addresses := slices.Clone(meta.NodeAddresses)
	if len(addresses) == 0 {
		return
	}
	if !slices.ContainsFunc(addresses, func(a corev1.NodeAddress) bool { return a.Type == corev1.NodeHostName }) {
		for _, a := range node.Status.Addresses {
			if a.Type == corev1.NodeHostName {
				addresses = append(addresses, a)
			}
		}
	}
	if !nodeAddressesChangeDetected(node.Status.Addresses, addresses) {
		return
	}
	if err := nodehelpers.PatchNodeAddresses(ctx, cnc.client, node.Name, addresses); err != nil {
		cnc.log.Error("Error patching node with cloud ip addresses", "node", node.Name, "err", err)
	}
}

// nodeModifier is one change to a Node, applied again on each retry.
type nodeModifier func(*corev1.Node)

// syncNode initializes a Node that has the uninitialized taint, and
// reconciles the labels of one that has not.
func (cnc *CloudNodeController) syncNode(ctx context.Context, nodeName string) error {
	cur, ok := cnc.nodes.GetStore().Get("", nodeName)
	if !ok {
		return nil
	}
	if getCloudTaint(cur.Spec.Taints) == nil {
		return cnc.reconcileNodeLabels(ctx, cur)
	}
	cnc.log.Info("Initializing node with cloud provider", "node", nodeName)
	meta, err := cnc.getInstanceMetadata(ctx, cur)
	if err != nil {
		return fmt.Errorf("failed to get instance metadata for node %s: %v", nodeName, err)
	}
	if meta == nil {
		cnc.log.Info("Skip sync node because cloud provided nil metadata", "node", nodeName)
		return nil
	}
	modifiers := getNodeModifiersFromCloudProvider(cur, meta, cnc.log)
	modifiers = append(modifiers, func(n *corev1.Node) { n.Spec.Taints = excludeCloudTaint(n.Spec.Taints) })

	updated, err := cnc.updateNode(ctx, metav1.DeepCopy(cur), modifiers)
	if err != nil {
		return err
	}
	// The addresses right away: nobody should wait 5 minutes for them.
	cnc.updateNodeAddress(ctx, updated, meta)
	cnc.log.Info("Successfully initialized node with cloud provider", "node", nodeName)
	cnc.recorder.Eventf(record.RefFor(&cur.ObjectMeta, "v1", "Node"), corev1.EventTypeNormal, "Synced", "Node synced successfully")
	return nil
}

// updateNode applies modifiers to node and updates it, reading it again
// after a conflict.
func (cnc *CloudNodeController) updateNode(ctx context.Context, node *corev1.Node, modifiers []nodeModifier) (*corev1.Node, error) {
	for i := 0; ; i++ {
		for _, modify := range modifiers {
			modify(node)
		}
		updated, err := rest.Update(ctx, cnc.client, node)
		if !rest.IsConflict(err) || i == updateNodeSpecRetries-1 {
			return updated, err
		}
		if node, err = rest.Get[corev1.Node](ctx, cnc.client, "", node.Name); err != nil {
			return nil, err
		}
	}
}

// getInstanceMetadata asks the cloud; without a provider ID from either
// the cloud or the Node the Node stays tainted (the ID is immutable once
// set, and the balancers need it).
func (cnc *CloudNodeController) getInstanceMetadata(ctx context.Context, node *corev1.Node) (*cloudprovider.InstanceMetadata, error) {
	meta, err := cnc.instances.InstanceMetadata(ctx, node)
	if err != nil {
		return nil, err
	}
	if meta != nil && meta.ProviderID == "" {
		if node.Spec.ProviderID == "" {
			return meta, fmt.Errorf("cloud provider does not set node provider ID for node %s", node.Name)
		}
		meta.ProviderID = node.Spec.ProviderID
	}
	return meta, nil
}

// getNodeModifiersFromCloudProvider turns the metadata into changes.
func getNodeModifiersFromCloudProvider(node *corev1.Node, meta *cloudprovider.InstanceMetadata, log *slog.Logger) []nodeModifier {
	var mods []nodeModifier
	setLabels := func(kv map[string]string) nodeModifier {
		return func(n *corev1.Node) {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			maps.Copy(n.Labels, kv)
		}
	}
	if node.Spec.ProviderID == "" && meta.ProviderID != "" {
		mods = append(mods, func(n *corev1.Node) { n.Spec.ProviderID = meta.ProviderID })
	}
	if meta.InstanceType != "" {
		log.Info("Adding node label from cloud provider", "node", node.Name, "label", corev1.LabelInstanceTypeStable, "value", meta.InstanceType)
		mods = append(mods, setLabels(map[string]string{corev1.LabelInstanceType: meta.InstanceType, corev1.LabelInstanceTypeStable: meta.InstanceType}))
	}
	if meta.Zone != "" {
		mods = append(mods, setLabels(map[string]string{corev1.LabelFailureDomainBetaZone: meta.Zone, corev1.LabelTopologyZone: meta.Zone}))
	}
	if meta.Region != "" {
		mods = append(mods, setLabels(map[string]string{corev1.LabelFailureDomainBetaRegion: meta.Region, corev1.LabelTopologyRegion: meta.Region}))
	}
	if len(meta.AdditionalLabels) > 0 {
		mods = append(mods, func(n *corev1.Node) {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			for k, v := range meta.AdditionalLabels {
				if k8sNamespaceRegex.MatchString(k) {
					log.Warn("Discarding node label with kubernetes namespace", "label", k)
					continue
				}
				if _, ok := n.Labels[k]; ok {
					continue // never overwrite a label the Node has
				}
				n.Labels[k] = v
			}
		})
	}
	return mods
}

// reconcileNodeLabels copies beta labels to their GA names.
func (cnc *CloudNodeController) reconcileNodeLabels(ctx context.Context, node *corev1.Node) error {
	labels := map[string]string{}
	for _, r := range labelReconcileInfo {
		primary, ok := node.Labels[r.primaryKey]
		if !ok {
			continue
		}
		if secondary, ok := node.Labels[r.secondaryKey]; !ok || secondary != primary {
			labels[r.secondaryKey] = primary
		}
	}
	if len(labels) == 0 {
		return nil
	}
	if err := nodehelpers.AddOrUpdateLabelsOnNode(ctx, cnc.client, node.Name, labels); err != nil {
		return fmt.Errorf("failed update labels for node %s: %w", node.Name, err)
	}
	return nil
}

func getCloudTaint(taints []corev1.Taint) *corev1.Taint {
	for i := range taints {
		if taints[i].Key == cloudprovider.TaintExternalCloudProvider {
			return &taints[i]
		}
	}
	return nil
}

func excludeCloudTaint(taints []corev1.Taint) []corev1.Taint {
	out := []corev1.Taint{}
	for _, t := range taints {
		if t.Key != cloudprovider.TaintExternalCloudProvider {
			out = append(out, t)
		}
	}
	return out
}

// nodeAddressesChangeDetected compares two address lists by type.
func nodeAddressesChangeDetected(a, b []corev1.NodeAddress) bool {
	if len(a) != len(b) {
		return true
	}
	byType := map[corev1.NodeAddressType]string{}
	for _, x := range a {
		byType[x.Type] = x.Address
	}
	for _, y := range b {
		if byType[y.Type] != y.Address {
			return true
		}
	}
	return false
}
