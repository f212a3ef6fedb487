// Package notreadytaint is a STAND-IN for one step of the node lifecycle
// controller (kube-controller-manager, chapter 4): remove the taint
// node.kubernetes.io/not-ready:NoSchedule from a Node once it reports
// Ready=True.
//
// Why chapter 3 needs it: the apiserver gives every new Node that taint
// (admission, as upstream's TaintNodesByCondition), so that nothing is
// scheduled on a node nobody has seen Ready. Kubelets never remove it —
// NodeRestriction forbids a node to touch its own taints — the node
// lifecycle controller does. Without a controller manager, upstream's
// scheduler (and ours: plugin TaintToleration) would refuse every node, and
// chapter 3's cluster would schedule nothing. So chapter 3 runs this small
// loop, with the node lifecycle controller's own identity and rights
// (service account kube-system/node-controller, ClusterRole
// system:controller:node-controller), through the apiserver like every
// other component. Chapter 4 replaces it with the real controller.
//
// Upstream: pkg/controller/nodelifecycle (doNoScheduleTaintingPass).
package notreadytaint

import (
	"context"
	"log/slog"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
)

// Identity is the node lifecycle controller's, as kube-controller-manager
// --use-service-account-credentials gives it.
var Identity = pki.Identity{User: "system:serviceaccount:kube-system:node-controller",
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"}}

// RBAC is upstream's bootstrap ClusterRole system:controller:node-controller
// and its binding. Chapter 1's bootstrap policy does not have the
// controllers' roles yet (chapter 4 adds them); chapter 3's main.go creates
// these two as the administrator would with kubectl apply.
func RBAC() (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {
	name := "system:controller:node-controller"
	meta := metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}}
	role := &rbacv1.ClusterRole{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list", "update", "delete", "patch"}, APIGroups: []string{""}, Resources: []string{"nodes"}},
		{Verbs: []string{"patch", "update"}, APIGroups: []string{""}, Resources: []string{"nodes/status"}},
		{Verbs: []string{"patch", "update"}, APIGroups: []string{""}, Resources: []string{"pods/status"}},
		{Verbs: []string{"list", "delete"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"create", "patch", "update"}, APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}},
		// Not in upstream's role: upstream's informers watch with the controller
		// manager's own identity; this stand-in has just one.
		{Verbs: []string{"watch"}, APIGroups: []string{""}, Resources: []string{"nodes"}},
	}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: meta,
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "node-controller", Namespace: "kube-system"}}}
	return role, binding
}

// EnsureRBAC creates RBAC() with admin's client, if missing.
func EnsureRBAC(ctx context.Context, admin *rest.Client) error {
	role, binding := RBAC()
	if _, err := rest.Create(ctx, admin, role); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	if _, err := rest.Create(ctx, admin, binding); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// Run removes the not-ready:NoSchedule taint from Ready nodes until ctx
// ends; c acts as Identity.
func Run(ctx context.Context, c *rest.Client, log *slog.Logger) {
	log = log.With("component", "node-lifecycle-standin")
	nodes := cache.New[corev1.Node](c, cache.Options{Logger: log})
	q := workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]())
	enqueue := func(n *corev1.Node) {
		if ready(n) && notReadyTaint(n) >= 0 {
			q.Add(n.Name)
		}
	}
	nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc: enqueue, UpdateFunc: func(_, n *corev1.Node) { enqueue(n) },
	})
	go nodes.Run(ctx)
	go func() { <-ctx.Done(); q.ShutDown() }()
	for {
		name, shutdown := q.Get()
		if shutdown {
			return
		}
		if err := untaint(ctx, c, name, log); err != nil && ctx.Err() == nil {
			log.Warn("cannot remove not-ready taint; retrying", "node", name, "err", err)
			q.AddRateLimited(name)
		} else {
			q.Forget(name)
		}
		q.Done(name)
	}
}

func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func notReadyTaint(n *corev1.Node) int {
	for i, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return i
		}
	}
	return -1
}

// untaint reads the node afresh and writes it without the taint; the
// resourceVersion makes a concurrent change a conflict (retried).
func untaint(ctx context.Context, c *rest.Client, name string, log *slog.Logger) error {
	n, err := rest.Get[corev1.Node](ctx, c, "", name)
	if rest.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	i := notReadyTaint(n)
	if i < 0 || !ready(n) {
		return nil
	}
	n.Spec.Taints = append(n.Spec.Taints[:i:i], n.Spec.Taints[i+1:]...)
	if _, err := rest.Update(ctx, c, n); err != nil {
		return err
	}
	log.Info("node is Ready: removed taint "+corev1.TaintNodeNotReady+":NoSchedule", "node", name)
	return nil
}
