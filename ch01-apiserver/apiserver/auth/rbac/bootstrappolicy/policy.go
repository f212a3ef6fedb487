// Package bootstrappolicy is the RBAC policy every apiserver creates at
// start: the ClusterRoles and ClusterRoleBindings with upstream's names and
// the rules that matter for the resources Kubik serves, and the rules of
// every kubelet that the Node authorizer narrows down. Upstream:
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go.
//
// admin, edit and view are built by aggregation, as upstream: each carries
// an aggregationRule selecting the ClusterRoles labelled
// rbac.authorization.k8s.io/aggregate-to-admin (-edit, -view)=true, and
// the rules live in system:aggregate-to-admin, -edit and -view. Chapter 4's
// clusterrole-aggregation controller keeps the union up to date (a
// ClusterRole an administrator labels aggregate-to-view joins view).
// Upstream's apiserver writes the three roles with no rules and leaves
// them to that controller; chapters 1–3 run no controller manager, so the
// roles are written here already holding the union the controller
// computes (aggregate.go) — what `kubectl get clusterrole view -o yaml`
// shows on a running upstream cluster.
package bootstrappolicy

import (
	"slices"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/auth"
)

var (
	read      = []string{"get", "list", "watch"}
	write     = []string{"create", "delete", "deletecollection", "patch", "update"}
	readWrite = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
)

// rule builds a PolicyRule: verbs on resources of groups, each list
// sorted as upstream's rule builder (rbacv1helpers.PolicyRuleBuilder) sorts it.
func rule(verbs []string, groups []string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: sorted(verbs), APIGroups: sorted(groups), Resources: sorted(resources)}
}

func sorted(list []string) []string { return slices.Sorted(slices.Values(list)) }

func urls(verbs []string, paths ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: paths}
}

func g(groups ...string) []string { return groups }
func v(verbs ...string) []string  { return verbs }

var core = g("")

func eventsRule() rbacv1.PolicyRule {
	return rule(v("create", "update", "patch"), g("", "events.k8s.io"), "events")
}

// Labels that put a ClusterRole into admin, edit or view.
const (
	AggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// viewRules (system:aggregate-to-view): read access to everything in a
// namespace that does not let you escalate (no secrets).
func viewRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(read, core, "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
		rule(read, core, "limitranges", "resourcequotas", "bindings",
			"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		// Reading namespaces at namespace scope: reading *this* namespace.
		rule(read, core, "namespaces"),
		rule(read, g("", "events.k8s.io"), "events"),
		rule(read, g("discovery.k8s.io"), "endpointslices"),
		rule(read, g("apps"), "controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
			"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale"),
		rule(read, g("autoscaling"), "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		rule(read, g("batch"), "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
		rule(read, g("extensions"), "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
			"ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
			"networkpolicies"),
		rule(read, g("policy"), "poddisruptionbudgets", "poddisruptionbudgets/status"),
		rule(read, g("networking.k8s.io"), "networkpolicies", "ingresses", "ingresses/status"),
		rule(read, g("resource.k8s.io"), "resourceclaims", "resourceclaims/status", "resourceclaimtemplates"),
	}
}

// editRules (system:aggregate-to-edit): writing workloads, configuration
// and secrets (not RBAC, not /status, quotas or limits).
func editRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(read, core, "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
		rule(v("impersonate"), core, "serviceaccounts"),
		rule(write, core, "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		rule(v("create"), core, "pods/eviction"),
		rule(write, core, "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"),
		rule(v("create"), core, "serviceaccounts/token"),
		rule(write, g("", "events.k8s.io"), "events"),
		rule(write, g("apps"), "statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale",
			"deployments/rollback", "replicasets", "replicasets/scale"),
		rule(write, g("autoscaling"), "horizontalpodautoscalers"),
		rule(write, g("batch"), "jobs", "cronjobs"),
		rule(write, g("extensions"), "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses",
			"replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
		rule(write, g("policy"), "poddisruptionbudgets"),
		rule(write, g("networking.k8s.io"), "networkpolicies", "ingresses"),
		rule(readWrite, g("coordination.k8s.io"), "leases"),
		rule(write, g("resource.k8s.io"), "resourceclaims", "resourceclaimtemplates"),
	}
}

// adminRules (system:aggregate-to-admin): granting permissions inside the
// namespace.
func adminRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(v("create"), g("authorization.k8s.io"), "localsubjectaccessreviews"),
		rule(readWrite, g(rbacv1.GroupName), "roles", "rolebindings"),
	}
}

// aggregatedRole is a role built by aggregation from the roles labelled
// selectLabel=true; labels are its own (edit is part of admin, view of
// edit).
func aggregatedRole(name, selectLabel string, labels ...string) *rbacv1.ClusterRole {
	r := clusterRole(name)
	for _, l := range labels {
		r.Labels[l] = "true"
	}
	r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{selectLabel: "true"}}}}
	return r
}

// aggregateTo is a role holding rules for the aggregated role label names.
func aggregateTo(name, label string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	r := clusterRole(name, rules...)
	r.Labels[label] = "true"
	return r
}

// NodeRules are what every kubelet may do (the Node authorizer narrows
// pods, secrets, configmaps, volumes, leases and its Node down to its own).
func NodeRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule(v("create"), g("authentication.k8s.io"), "tokenreviews"),
		rule(v("create"), g("authorization.k8s.io"), "subjectaccessreviews", "localsubjectaccessreviews"),
		rule(read, core, "services"),
		rule(v("create", "get", "list", "watch"), core, "nodes"),
		rule(v("update", "patch"), core, "nodes/status"),
		rule(v("update", "patch"), core, "nodes"),
		eventsRule(),
		rule(read, core, "pods"),
		rule(v("create", "delete"), core, "pods"),
		rule(v("update", "patch"), core, "pods/status"),
		rule(v("create"), core, "pods/eviction"),
		rule(read, core, "secrets", "configmaps"),
		rule(v("get"), core, "persistentvolumeclaims", "persistentvolumes"),
		rule(v("get"), core, "endpoints"),
		rule(v("create", "get", "list", "watch"), g(certificatesv1.GroupName), "certificatesigningrequests"),
		rule(v("get", "create", "update", "patch", "delete"), g("coordination.k8s.io"), "leases"),
		rule(v("get", "update", "patch"), core, "persistentvolumeclaims/status"),
		rule(v("create"), core, "serviceaccounts/token"),
		rule(read, g("node.k8s.io"), "runtimeclasses"),
		rule(read, g("discovery.k8s.io"), "endpointslices"),
	}
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	labels := map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
			Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"}},
		Rules: rules,
	}
}

// signerApprover is a role that may approve the requests for one signer.
func signerApprover(name, signerName string) *rbacv1.ClusterRole {
	return clusterRole(name, rbacv1.PolicyRule{Verbs: v("approve"), APIGroups: g(certificatesv1.GroupName),
		Resources: []string{"signers"}, ResourceNames: []string{signerName}})
}

func clusterRoleBinding(role string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role, Labels: map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"},
			Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: subjects,
	}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

// ClusterRoles are the ClusterRoles created at start, the aggregated ones
// already filled (Aggregate).
func ClusterRoles() []*rbacv1.ClusterRole {
	roles := []*rbacv1.ClusterRole{
		clusterRole("cluster-admin",
			rule(v("*"), g("*"), "*"),
			urls(v("*"), "*")),
		clusterRole("system:discovery",
			urls(v("get"), "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/")),
		clusterRole("system:basic-user",
			rule(v("create"), g("authorization.k8s.io"), "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			rule(v("create"), g("authentication.k8s.io"), "selfsubjectreviews")),
		clusterRole("system:public-info-viewer",
			urls(v("get"), "/healthz", "/livez", "/readyz", "/version", "/version/")),
		// ServiceAccount issuer discovery: every ServiceAccount may read
		// the issuer's OIDC metadata and keys.
		clusterRole("system:service-account-issuer-discovery",
			urls(v("get"), "/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/")),
		aggregatedRole("admin", AggregateToAdmin),
		aggregatedRole("edit", AggregateToEdit, AggregateToAdmin),
		aggregatedRole("view", AggregateToView, AggregateToEdit),
		aggregateTo("system:aggregate-to-admin", AggregateToAdmin, adminRules()...),
		aggregateTo("system:aggregate-to-edit", AggregateToEdit, editRules()...),
		aggregateTo("system:aggregate-to-view", AggregateToView, viewRules()...),
		clusterRole("system:node", NodeRules()...),
		// Full access to the kubelet API (upstream's rules with
		// KubeletFineGrainedAuthz), for whoever an administrator binds it
		// to. The apiserver's own kubelet client is in system:masters.
		clusterRole("system:kubelet-api-admin",
			rule(read, core, "nodes"),
			rule(v("proxy"), core, "nodes"),
			rule(v("*"), core, "nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log"),
			rule(v("*"), core, "nodes/pods", "nodes/healthz", "nodes/configz")),
		clusterRole("system:node-proxier",
			rule(v("list", "watch"), core, "services", "endpoints"),
			rule(read, core, "nodes"),
			eventsRule(),
			rule(v("list", "watch"), g("networking.k8s.io"), "servicecidrs"),
			rule(v("list", "watch"), g("discovery.k8s.io"), "endpointslices")),
		clusterRole("system:node-bootstrapper",
			rule(v("create", "get", "list", "watch"), g(certificatesv1.GroupName), "certificatesigningrequests")),
		// Who may approve requests for each built-in signer, and ask for a
		// node client certificate (bound by an administrator, or by
		// kubeadm, to the bootstrapping kubelets).
		signerApprover("system:certificates.k8s.io:kube-apiserver-client-approver", certificatesv1.KubeAPIServerClientSignerName),
		signerApprover("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver", certificatesv1.KubeAPIServerClientKubeletSignerName),
		signerApprover("system:certificates.k8s.io:kubelet-serving-approver", certificatesv1.KubeletServingSignerName),
		signerApprover("system:certificates.k8s.io:legacy-unknown-approver", certificatesv1.LegacyUnknownSignerName),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient",
			rule(v("create"), g(certificatesv1.GroupName), "certificatesigningrequests/nodeclient")),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
			rule(v("create"), g(certificatesv1.GroupName), "certificatesigningrequests/selfnodeclient")),
		clusterRole("system:auth-delegator",
			rule(v("create"), g("authentication.k8s.io"), "tokenreviews"),
			rule(v("create"), g("authorization.k8s.io"), "subjectaccessreviews")),
		clusterRole("system:kube-scheduler",
			eventsRule(),
			rule(v("create"), g("coordination.k8s.io"), "leases"),
			rbacv1.PolicyRule{Verbs: v("get", "update", "list", "watch"), APIGroups: g("coordination.k8s.io"), Resources: []string{"leases"}, ResourceNames: []string{"kube-scheduler"}},
			rule(read, core, "nodes"),
			rule(v("get", "list", "watch", "delete"), core, "pods"),
			rule(v("create"), core, "pods/binding", "bindings"),
			rule(v("patch", "update"), core, "pods/status"),
			rule(read, core, "services", "replicationcontrollers"),
			rule(read, g("apps"), "replicasets", "statefulsets"),
			rule(read, g("policy"), "poddisruptionbudgets"),
			rule(read, core, "persistentvolumeclaims", "persistentvolumes", "namespaces"),
			rule(v("create"), g("authentication.k8s.io"), "tokenreviews"),
			rule(v("create"), g("authorization.k8s.io"), "subjectaccessreviews"),
			rule(read, g("storage.k8s.io"), "csinodes", "csidrivers", "csistoragecapacities", "storageclasses", "volumeattachments"),
			// Dynamic resource allocation (GA, on by default in 1.35).
			rule(read, g("resource.k8s.io"), "deviceclasses", "resourceslices"),
			rule(v("get", "list", "watch", "update", "patch"), g("resource.k8s.io"), "resourceclaims", "resourceclaims/status"),
			rule(v("update"), core, "pods/finalizers")),
		clusterRole("system:kube-controller-manager",
			eventsRule(),
			rule(v("create"), g("coordination.k8s.io"), "leases"),
			rbacv1.PolicyRule{Verbs: v("get", "update"), APIGroups: g("coordination.k8s.io"), Resources: []string{"leases"}, ResourceNames: []string{"kube-controller-manager"}},
			rule(v("create"), core, "secrets", "serviceaccounts"),
			rule(v("delete"), core, "secrets"),
			rule(v("get"), core, "namespaces", "secrets", "serviceaccounts", "configmaps"),
			rule(v("update"), core, "secrets", "serviceaccounts"),
			rule(v("create"), g("authentication.k8s.io"), "tokenreviews"),
			rule(v("create"), g("authorization.k8s.io"), "subjectaccessreviews"),
			rule(v("list", "watch"), g("*"), "*"),
			rule(v("create"), core, "serviceaccounts/token"),
			// The garbage collector and the namespace controller act on every
			// resource and subresource (upstream's roles
			// system:controller:generic-garbage-collector and
			// system:controller:namespace-controller: namespaces/finalize,
			// namespaces/status); this covers the persistentvolume-binder's
			// updates of PVs, PVCs and their status too.
			rule(v("get", "patch", "update", "delete", "deletecollection"), g("*"), "*"),
			// Not in upstream's role: upstream runs each controller with its own
			// service account (--use-service-account-credentials) and roles
			// system:controller:job-controller, ...; Kubik's controllers share
			// the manager's identity, so it holds their rights. Workload,
			// endpoint and node controllers:
			rule(v("get", "create", "update", "patch", "delete"), core, "pods", "endpoints", "nodes"),
			rule(v("update", "patch"), core, "pods/status", "nodes/status"),
			rule(v("get", "create", "update", "patch", "delete"), g("batch"), "jobs", "cronjobs"),
			rule(v("update", "patch"), g("batch"), "jobs/status", "jobs/finalizers", "cronjobs/status", "cronjobs/finalizers"),
			rule(v("get", "update", "patch"), g("apps"), "daemonsets"),
			rule(v("create"), g("apps"), "replicasets"), // the deployment controller's new ReplicaSets
			// The DaemonSet and StatefulSet controllers' history
			// (system:controller:daemon-set-controller's and
			// statefulset-controller's right), and the claims the StatefulSet
			// controller makes from its volumeClaimTemplates.
			rule(v("create"), g("apps"), "controllerrevisions"),
			rule(v("create"), core, "persistentvolumeclaims"),
			rule(v("update", "patch"), g("apps"), "daemonsets/status", "daemonsets/finalizers"),
			rule(v("get", "create", "update", "patch", "delete"), g("discovery.k8s.io"), "endpointslices"),
			// The CSR approving and signing controllers (upstream's
			// system:controller:certificate-controller): approve kubelet
			// client certificates, sign for the built-in signers.
			rbacv1.PolicyRule{Verbs: v("approve"), APIGroups: g(certificatesv1.GroupName), Resources: []string{"signers"},
				ResourceNames: []string{certificatesv1.KubeAPIServerClientKubeletSignerName}},
			rbacv1.PolicyRule{Verbs: v("sign"), APIGroups: g(certificatesv1.GroupName), Resources: []string{"signers"},
				ResourceNames: []string{certificatesv1.KubeAPIServerClientSignerName, certificatesv1.KubeAPIServerClientKubeletSignerName,
					certificatesv1.KubeletServingSignerName, certificatesv1.LegacyUnknownSignerName}},
			rule(v("get"), core, "services"),
			rule(v("get"), g("coordination.k8s.io"), "leases"),
			rule(v("create"), core, "configmaps"), // root-ca-certificate-publisher: kube-root-ca.crt
			// The clusterrole-aggregation controller writes admin, edit and
			// view, whatever rules they gather.
			rule(v("escalate"), g(rbacv1.GroupName), "clusterroles")),
	}
	roles = append(roles, ControllerRoles()...)
	Aggregate(roles)
	return roles
}

// ClusterRoleBindings are the ClusterRoleBindings created at start.
// system:node is bound to nobody, as upstream: kubelets get their rights
// from the Node authorizer.
func ClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return append([]*rbacv1.ClusterRoleBinding{
		clusterRoleBinding("cluster-admin", groupSubject(auth.GroupMasters)),
		clusterRoleBinding("system:discovery", groupSubject(auth.GroupAuthenticated)),
		clusterRoleBinding("system:basic-user", groupSubject(auth.GroupAuthenticated)),
		clusterRoleBinding("system:public-info-viewer", groupSubject(auth.GroupAuthenticated), groupSubject(auth.GroupUnauthenticated)),
		clusterRoleBinding("system:service-account-issuer-discovery", groupSubject(auth.GroupServiceAccounts)),
		clusterRoleBinding("system:node"),
		clusterRoleBinding("system:node-proxier", userSubject(auth.UserKubeProxy)),
		clusterRoleBinding("system:kube-controller-manager", userSubject(auth.UserKubeControllerManager)),
		clusterRoleBinding("system:kube-scheduler", userSubject(auth.UserKubeScheduler)),
	}, ControllerRoleBindings()...)
}
