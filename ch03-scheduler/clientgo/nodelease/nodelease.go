// Package nodelease is a kubelet's heartbeat: the Lease kube-node-lease/<node>
// it renews every RenewInterval, which the node lifecycle controller watches
// (a node whose Lease is older than its grace period turns Unknown). Chapter
// 3's hollow nodes and chapter 5's real kubelet both use it.
//
// Upstream: pkg/kubelet/nodelease and k8s.io/component-helpers/apimachinery/lease.
package nodelease

import (
	"context"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// DurationSeconds and RenewInterval are the kubelet's defaults
// (nodeLeaseDurationSeconds 40, renewed every quarter of it).
const (
	DurationSeconds = 40
	RenewInterval   = 10 * time.Second
)

// Renew sets the node's Lease renewTime to now, creating the Lease (owned by
// the Node, so deleting the Node deletes it) when there is none.
func Renew(ctx context.Context, c *rest.Client, nodeName string) error {
	now := metav1.NowMicro()
	l, err := rest.Get[coordinationv1.Lease](ctx, c, corev1.NamespaceNodeLease, nodeName)
	if rest.IsNotFound(err) {
		holder, dur := nodeName, int32(DurationSeconds)
		l = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: nodeName, Namespace: corev1.NamespaceNodeLease},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: &now},
		}
		if node, err := rest.Get[corev1.Node](ctx, c, "", nodeName); err == nil {
			l.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}
		}
		_, err = rest.Create(ctx, c, l)
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime = &now
	_, err = rest.Update(ctx, c, l)
	return err
}
