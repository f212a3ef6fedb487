// Package node is the Node authorizer. Every kubelet needs to read secrets
// and config maps (for its pods' volumes and environment), write its Node
// and its pods' status. With RBAC alone that means "every kubelet may read
// every secret": one compromised node reads the whole cluster. The Node
// authorizer narrows each kubelet (user system:node:<name> in group
// system:nodes) down to what its own pods use:
//
//   - its own Node object, its own Lease in kube-node-lease;
//   - pods bound to it (spec.nodeName), and lists of pods only with
//     fieldSelector spec.nodeName=<itself>;
//   - secrets, configmaps, PVCs (and their PVs) and service-account tokens
//     that those pods reference;
//   - everything else through the static system:node rules (events, services...).
//
// What the authorizer cannot see (the body of a create or update) the
// apiserver's NodeRestriction admission plugin checks: a kubelet may only
// create mirror pods bound to itself, update the status of its own pods,
// modify its own Node (not its taints, not restricted labels), and so on.
// Upstream: plugin/pkg/auth/authorizer/node.
//
// Simplified: upstream keeps a graph of pods, secrets, volumes and nodes,
// fed by informers, and answers from memory. Kubik asks the apiserver's
// storage at request time (graph.go): a pod by name, or the pods of one
// namespace, filtered by spec.nodeName. Same answers, more reads.
package node

import (
	"context"
	"errors"
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/rbac"
	"kubik/ch01-apiserver/apiserver/selection"
)

// Authorizer is the Node authorizer.
type Authorizer struct {
	objects Objects
	rules   []rbacv1.PolicyRule
}

// NewAuthorizer returns a Node authorizer that reads pods and claims from
// objects and allows every kubelet rules (the bootstrap policy's
// system:node rules) beyond what its pods use.
func NewAuthorizer(objects Objects, rules []rbacv1.PolicyRule) *Authorizer {
	return &Authorizer{objects: objects, rules: rules}
}

// RulesFor: a kubelet's rules depend on the objects it asks about, so they
// cannot be listed (upstream answers the same).
func (z *Authorizer) RulesFor(_ context.Context, u *auth.UserInfo, _ string) ([]rbacv1.PolicyRule, bool, error) {
	if _, ok := auth.NodeIdentity(u); ok {
		return nil, true, errors.New("node authorizer does not support user rule resolution")
	}
	return nil, false, nil
}

// Authorize decides for kubelets; about everyone else it has no opinion.
func (z *Authorizer) Authorize(ctx context.Context, a *auth.Attributes) (auth.Decision, string, error) {
	node, ok := auth.NodeIdentity(a.User)
	if !ok {
		return auth.DecisionNoOpinion, "", nil
	}
	if node == "" {
		return auth.DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", a.User.Name), nil
	}
	if a.IsResourceRequest {
		switch {
		case a.APIGroup == "" && a.Resource == "secrets":
			return z.readNamespaced(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "configmaps":
			return z.readNamespaced(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "persistentvolumeclaims":
			if a.Subresource == "status" {
				if a.Verb != "update" && a.Verb != "patch" {
					return auth.DecisionNoOpinion, "can only get/update/patch this type", nil
				}
				return z.related(ctx, node, a)
			}
			return z.get(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "persistentvolumes":
			return z.get(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "serviceaccounts":
			if a.Verb != "create" || a.Name == "" {
				return auth.DecisionNoOpinion, "can only create tokens for individual service accounts", nil
			}
			if a.Subresource != "token" {
				return auth.DecisionNoOpinion, "can only create token subresource of serviceaccount", nil
			}
			return z.related(ctx, node, a)
		case a.APIGroup == "coordination.k8s.io" && a.Resource == "leases":
			return authorizeLease(node, a)
		case a.APIGroup == "" && a.Resource == "nodes":
			return authorizeNode(node, a)
		case a.APIGroup == "" && a.Resource == "pods":
			return z.authorizePod(ctx, node, a)
		}
	}
	if rbac.RulesAllow(a, z.rules...) {
		return auth.DecisionAllow, "", nil
	}
	return auth.DecisionNoOpinion, "", nil
}

// get: only "get" of one object related to the node.
func (z *Authorizer) get(ctx context.Context, node string, a *auth.Attributes) (auth.Decision, string, error) {
	if a.Verb != "get" {
		return auth.DecisionNoOpinion, "can only get individual resources of this type", nil
	}
	if a.Subresource != "" {
		return auth.DecisionNoOpinion, "cannot get subresource", nil
	}
	return z.related(ctx, node, a)
}

// readNamespaced: get, list or watch of one named object related to the node.
func (z *Authorizer) readNamespaced(ctx context.Context, node string, a *auth.Attributes) (auth.Decision, string, error) {
	switch a.Verb {
	case "get", "list", "watch":
	default:
		return auth.DecisionNoOpinion, "can only read resources of this type", nil
	}
	if a.Subresource != "" {
		return auth.DecisionNoOpinion, "cannot read subresource", nil
	}
	if a.Namespace == "" {
		return auth.DecisionNoOpinion, "can only read namespaced object of this type", nil
	}
	return z.related(ctx, node, a)
}

// related allows a when the named object is used by a pod bound to node.
func (z *Authorizer) related(ctx context.Context, node string, a *auth.Attributes) (auth.Decision, string, error) {
	if a.Name == "" {
		return auth.DecisionNoOpinion, "No Object name found", nil
	}
	ok, err := z.uses(ctx, node, a.Resource, a.Namespace, a.Name)
	if err != nil {
		return auth.DecisionNoOpinion, "", err
	}
	if !ok {
		return auth.DecisionNoOpinion, fmt.Sprintf("no relationship found between node '%s' and this object", node), nil
	}
	return auth.DecisionAllow, "", nil
}

func authorizeLease(node string, a *auth.Attributes) (auth.Decision, string, error) {
	switch a.Verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return auth.DecisionNoOpinion, "can only get, create, update, patch, or delete a node lease", nil
	}
	if a.Namespace != corev1.NamespaceNodeLease {
		return auth.DecisionNoOpinion, fmt.Sprintf("can only access leases in the %q system namespace", corev1.NamespaceNodeLease), nil
	}
	if a.Verb != "create" && a.Name != node {
		return auth.DecisionNoOpinion, "can only access node lease with the same name as the requesting node", nil
	}
	return auth.DecisionAllow, "", nil
}

func authorizeNode(node string, a *auth.Attributes) (auth.Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "create", "update", "patch":
			return auth.DecisionAllow, "", nil // NodeRestriction checks the name
		case "get", "list", "watch":
			switch a.Name {
			case node:
				return auth.DecisionAllow, "", nil
			case "":
				return auth.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", node), nil
			default:
				return auth.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", node, a.Name), nil
			}
		}
	case "status":
		if a.Verb == "update" || a.Verb == "patch" {
			return auth.DecisionAllow, "", nil
		}
	}
	return auth.DecisionNoOpinion, "", nil
}

func (z *Authorizer) authorizePod(ctx context.Context, node string, a *auth.Attributes) (auth.Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "get":
			return z.get(ctx, node, a)
		case "list", "watch":
			if sel, err := selection.ParseFieldSelector(a.FieldSelector); err == nil {
				if v, ok := sel.RequiresExactMatch("spec.nodeName"); ok && v == node {
					return auth.DecisionAllow, "", nil
				}
			}
			if a.Name != "" {
				return z.related(ctx, node, a)
			}
			return auth.DecisionNoOpinion, "can only list/watch pods with spec.nodeName field selector", nil
		case "create", "delete":
			return auth.DecisionAllow, "", nil // mirror pods; NodeRestriction checks them
		}
	case "status":
		if a.Verb == "update" || a.Verb == "patch" {
			return auth.DecisionAllow, "", nil
		}
	case "eviction":
		if a.Verb == "create" {
			return auth.DecisionAllow, "", nil
		}
	}
	return auth.DecisionNoOpinion, "", nil
}
