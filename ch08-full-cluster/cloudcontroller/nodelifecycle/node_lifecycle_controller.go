// Package nodelifecycle is the cloud node lifecycle controller
// (cloud-node-lifecycle-controller, alias "cloud-node-lifecycle"): it asks
// the cloud about every Node that is not Ready and acts on the answer.
//
// In plain words. Every --node-monitor-period (5 s) it goes through the
// Nodes:
//
//   - Ready: the taint node.cloudprovider.kubernetes.io/shutdown:NoSchedule,
//     if a shutdown left it there, comes off;
//   - not Ready (False or Unknown, or no Ready condition yet) and the
//     machine no longer exists in the cloud: the Node is deleted (event
//     DeletingNode "Deleting node <name> because it does not exist in the
//     cloud provider"); its pods are then the garbage collector's;
//   - not Ready and the machine exists but is shut down: the shutdown taint
//     goes on, so nothing new is scheduled there while it is off.
//
// This is the one place a Node disappears by itself: the node lifecycle
// controller of kube-controller-manager only marks a silent node Unknown
// and evicts its pods; it cannot know the machine is gone for good.
//
// Upstream: k8s.io/cloud-provider/controllers/nodelifecycle.
package nodelifecycle

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/record"
	"kubik/ch08-full-cluster/cloudcontroller/nodehelpers"
	"kubik/ch08-full-cluster/cloudprovider"
)

// ControllerName is the source of the controller's events.
const ControllerName = "cloud-node-lifecycle-controller"

const (
	deleteNodeEvent       = "DeletingNode"
	deleteNodeFailedEvent = "DeletingNodeFailed"
)

// ShutdownTaint is put on a Node whose machine is shut down.
var ShutdownTaint = &corev1.Taint{Key: cloudprovider.TaintNodeShutdown, Effect: corev1.TaintEffectNoSchedule}

// CloudNodeLifecycleController deletes the Nodes whose machine is gone and
// taints those whose machine is off. Upstream: the same name.
type CloudNodeLifecycleController struct {
	client            *rest.Client
	nodes             *cache.Informer[corev1.Node, *corev1.Node]
	instances         cloudprovider.InstancesV2
	recorder          *record.Recorder
	log               *slog.Logger
	nodeMonitorPeriod time.Duration
}

// NewCloudNodeLifecycleController fails when the cloud has no instances.
func NewCloudNodeLifecycleController(cc *controller.ControllerContext, cloud cloudprovider.Interface, nodeMonitorPeriod time.Duration) (*CloudNodeLifecycleController, error) {
	if cc.Client == nil {
		return nil, errors.New("kubernetes client is nil")
	}
	if cloud == nil {
		return nil, errors.New("no cloud provider provided")
	}
	instances, ok := cloud.InstancesV2()
	if !ok {
		return nil, errors.New("cloud provider does not support instances")
	}
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	return &CloudNodeLifecycleController{client: cc.Client, instances: instances, log: log, nodeMonitorPeriod: nodeMonitorPeriod,
		nodes:    controller.InformerFor[corev1.Node](cc.Informers),
		recorder: record.NewRecorder(cc.Client, ControllerName, log)}, nil
}

// Run checks the Nodes every nodeMonitorPeriod until ctx ends.
func (c *CloudNodeLifecycleController) Run(ctx context.Context) {
	go c.recorder.Run(ctx)
	if !cache.WaitForCacheSync(ctx, c.nodes.HasSynced) {
		return
	}
	c.log.Info("Starting cloud node lifecycle controller", "nodeMonitorPeriod", c.nodeMonitorPeriod)
	for {
		c.MonitorNodes(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.nodeMonitorPeriod):
		}
	}
}

// MonitorNodes is one pass over the Nodes.
func (c *CloudNodeLifecycleController) MonitorNodes(ctx context.Context) {
	for _, node := range c.nodes.GetStore().List() {
		status := corev1.ConditionUnknown
		if cond := nodehelpers.GetNodeCondition(&node.Status, corev1.NodeReady); cond != nil {
			status = cond.Status
		}
		if status == corev1.ConditionTrue {
			if err := nodehelpers.RemoveTaintOffNode(ctx, c.client, node.Name, node, ShutdownTaint); err != nil {
				c.log.Error("error patching node taints", "node", node.Name, "err", err)
			}
			continue
		}

		// Not Ready: does the machine still exist?
		exists, err := c.instances.InstanceExists(ctx, node)
		if err != nil {
			c.log.Error("error checking if node exists", "node", node.Name, "err", err)
			continue
		}
		if !exists {
			// Gone for good: the Node goes too, its taints do not matter.
			c.log.Info("deleting node since it is no longer present in cloud provider", "node", node.Name)
			ref := record.ObjectRef{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}
			c.recorder.Eventf(ref, corev1.EventTypeNormal, deleteNodeEvent, "Deleting node %s because it does not exist in the cloud provider", node.Name)
			if err := rest.Delete[corev1.Node](ctx, c.client, "", node.Name, nil); err != nil && !rest.IsNotFound(err) {
				c.log.Error("unable to delete node", "node", node.Name, "err", err)
				c.recorder.Eventf(ref, corev1.EventTypeWarning, deleteNodeFailedEvent, "Failed deleting node %s: %v", node.Name, err)
			}
			continue
		}
		shutdown, err := c.instances.InstanceShutdown(ctx, node)
		if err != nil {
			c.log.Error("error checking if node is shutdown", "node", node.Name, "err", err)
			continue
		}
		if shutdown {
			if err := nodehelpers.AddOrUpdateTaintOnNode(ctx, c.client, node.Name, ShutdownTaint); err != nil {
				c.log.Error("failed to apply shutdown taint to node, it may have been deleted", "node", node.Name, "err", err)
			}
		}
	}
}
