// Package clusterroleaggregation is the clusterrole-aggregation controller
// of kube-controller-manager: a ClusterRole with an aggregationRule holds
// the union of the rules of the ClusterRoles its label selectors pick.
// That is how admin, edit and view are built,
//
//	view   ← every role labelled rbac.authorization.k8s.io/aggregate-to-view=true
//	edit   ← aggregate-to-edit (view is one of them)
//	admin  ← aggregate-to-admin (edit is one of them)
//
// and how an extension adds its resources to them: a ClusterRole labelled
// aggregate-to-view=true granting read access to crontabs makes every
// holder of view able to read crontabs. Any change to any ClusterRole
// queues every aggregated one; a sync lists the roles each selector picks
// in name order, collects their rules once each, and writes them with a
// server-side apply (field manager clusterrole-aggregation-controller)
// when they differ.
//
// Upstream: pkg/controller/clusterroleaggregation.
package clusterroleaggregation

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

// FieldManager is the manager of the rules the controller applies.
const FieldManager = "clusterrole-aggregation-controller"

// Workers is how many workers upstream runs (no flag).
const Workers = 5

// ClusterRoleAggregationController is upstream's
// ClusterRoleAggregationController.
type ClusterRoleAggregationController struct {
	client       *rest.Client
	clusterRoles *cache.Informer[rbacv1.ClusterRole, *rbacv1.ClusterRole]
	queue        *workqueue.RateLimitingQueue[string]
	log          *slog.Logger
}

// NewClusterRoleAggregation asks for the ClusterRole informer.
func NewClusterRoleAggregation(cc *controller.ControllerContext) (*ClusterRoleAggregationController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &ClusterRoleAggregationController{client: cc.Client, log: log.With("controller", FieldManager),
		clusterRoles: controller.InformerFor[rbacv1.ClusterRole](cc.Informers),
		queue:        workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]())}
	c.clusterRoles.AddEventHandler(cache.ResourceEventHandlerFuncs[rbacv1.ClusterRole]{
		AddFunc:    func(*rbacv1.ClusterRole) { c.enqueue() },
		UpdateFunc: func(_, _ *rbacv1.ClusterRole) { c.enqueue() },
		DeleteFunc: func(*rbacv1.ClusterRole) { c.enqueue() },
	})
	return c, nil
}

// enqueue queues every aggregated ClusterRole: any role may be one they
// select, or have just stopped being one.
func (c *ClusterRoleAggregationController) enqueue() {
	for _, r := range c.clusterRoles.GetStore().List() {
		if r.AggregationRule != nil {
			c.queue.Add(r.Name)
		}
	}
}

// Run waits for the cache and runs Workers workers until ctx ends.
func (c *ClusterRoleAggregationController) Run(ctx context.Context, _ int) {
	worker.RunWorkers(ctx, c.queue, Workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncClusterRole), c.log, "clusterRole")
	}, c.clusterRoles.HasSynced)
}

// syncClusterRole recomputes one aggregated role's rules.
func (c *ClusterRoleAggregationController) syncClusterRole(ctx context.Context, key string) error {
	shared, ok := c.clusterRoles.GetStore().Get("", key)
	if !ok || shared.AggregationRule == nil {
		return nil
	}
	all := c.clusterRoles.GetStore().List()
	slices.SortFunc(all, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
	newPolicyRules := []rbacv1.PolicyRule{}
	for i := range shared.AggregationRule.ClusterRoleSelectors {
		sel, err := selection.FromLabelSelector(&shared.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return err
		}
		for _, r := range all {
			if r.Name == shared.Name || !sel.Matches(r.Labels) {
				continue
			}
			for _, rule := range r.Rules {
				if !ruleExists(newPolicyRules, rule) {
					newPolicyRules = append(newPolicyRules, rule)
				}
			}
		}
	}
	if rulesEqual(newPolicyRules, shared.Rules) {
		return nil
	}
	err := c.applyClusterRoles(ctx, shared.Name, newPolicyRules)
	if se, ok := err.(*rest.StatusError); ok && se.ErrStatus.Code == http.StatusUnsupportedMediaType {
		// An apiserver without server-side apply.
		err = c.updateClusterRoles(ctx, shared, newPolicyRules)
	}
	return err
}

// applyClusterRoles owns the role's rules by server-side apply, forcing
// conflicts (the rules are the controller's).
func (c *ClusterRoleAggregationController) applyClusterRoles(ctx context.Context, name string, rules []rbacv1.PolicyRule) error {
	body, err := json.Marshal(map[string]any{"apiVersion": rbacv1.GroupName + "/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": name}, "rules": rules})
	if err != nil {
		return err
	}
	r := scheme.Lookup(rbacv1.GroupName, "v1", "clusterroles")
	return c.client.Do(ctx, rest.Request{Method: http.MethodPatch, Path: rest.ResourcePath(r, "", name, ""),
		Query:       url.Values{"fieldManager": {FieldManager}, "force": {"true"}},
		ContentType: string(rest.ApplyPatchType), Body: body}, nil)
}

func (c *ClusterRoleAggregationController) updateClusterRoles(ctx context.Context, shared *rbacv1.ClusterRole, rules []rbacv1.PolicyRule) error {
	b, _ := json.Marshal(shared)
	var role rbacv1.ClusterRole
	if err := json.Unmarshal(b, &role); err != nil {
		return err
	}
	role.Rules = rules
	_, err := rest.Update(ctx, c.client, &role)
	return err
}

func ruleExists(haystack []rbacv1.PolicyRule, needle rbacv1.PolicyRule) bool {
	return slices.ContainsFunc(haystack, func(r rbacv1.PolicyRule) bool { return reflect.DeepEqual(r, needle) })
}

// rulesEqual compares as upstream's semantic equality: an empty list
// equals none.
func rulesEqual(a, b []rbacv1.PolicyRule) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
