package scheme

import (
	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/eventsv1"
	"kubik/ch01-apiserver/api/flowcontrolv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/nodev1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/resourcev1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/api/storagev1"
)

// Resources is every resource the apiserver serves, in discovery order
// (the order of /api/v1 and /apis as a real apiserver lists them).
var Resources = []*Resource{
	// core/v1
	{Version: "v1", Resource: "configmaps", Singular: "configmap", Kind: "ConfigMap", Namespaced: true,
		ShortNames: []string{"cm"}, Verbs: AllVerbs, StoragePrefix: "configmaps",
		New: func() metav1.Object { return &corev1.ConfigMap{} }},
	{Version: "v1", Resource: "endpoints", Singular: "endpoints", Kind: "Endpoints", Namespaced: true,
		ShortNames: []string{"ep"}, Verbs: AllVerbs, StoragePrefix: "services/endpoints",
		New: func() metav1.Object { return &corev1.Endpoints{} }},
	{Version: "v1", Resource: "events", Singular: "event", Kind: "Event", Namespaced: true,
		ShortNames: []string{"ev"}, Verbs: AllVerbs, StoragePrefix: "events",
		New: func() metav1.Object { return &corev1.Event{} }},
	{Version: "v1", Resource: "limitranges", Singular: "limitrange", Kind: "LimitRange", Namespaced: true,
		ShortNames: []string{"limits"}, Verbs: AllVerbs, StoragePrefix: "limitranges",
		New: func() metav1.Object { return &corev1.LimitRange{} }},
	{Version: "v1", Resource: "namespaces", Singular: "namespace", Kind: "Namespace",
		ShortNames: []string{"ns"}, Verbs: NamespaceVerbs, StoragePrefix: "namespaces",
		Subresources: []Subresource{{Name: "finalize", Kind: "Namespace", Verbs: []string{"update"}}, status("Namespace")},
		New:          func() metav1.Object { return &corev1.Namespace{} }},
	{Version: "v1", Resource: "nodes", Singular: "node", Kind: "Node",
		ShortNames: []string{"no"}, Verbs: AllVerbs, StoragePrefix: "minions",
		Subresources: []Subresource{status("Node")},
		New:          func() metav1.Object { return &corev1.Node{} }},
	{Version: "v1", Resource: "persistentvolumeclaims", Singular: "persistentvolumeclaim", Kind: "PersistentVolumeClaim", Namespaced: true,
		ShortNames: []string{"pvc"}, Verbs: AllVerbs, StoragePrefix: "persistentvolumeclaims",
		Subresources: []Subresource{status("PersistentVolumeClaim")},
		New:          func() metav1.Object { return &corev1.PersistentVolumeClaim{} }},
	{Version: "v1", Resource: "persistentvolumes", Singular: "persistentvolume", Kind: "PersistentVolume",
		ShortNames: []string{"pv"}, Verbs: AllVerbs, StoragePrefix: "persistentvolumes",
		Subresources: []Subresource{status("PersistentVolume")},
		New:          func() metav1.Object { return &corev1.PersistentVolume{} }},
	{Version: "v1", Resource: "pods", Singular: "pod", Kind: "Pod", Namespaced: true,
		ShortNames: []string{"po"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "pods", Generation: true,
		Subresources: []Subresource{connect("attach", "PodAttachOptions", ConnectVerbs), {Name: "binding", Kind: "Binding", Verbs: CreateOnly},
			{Name: "ephemeralcontainers", Kind: "Pod", Verbs: SubresourceRW},
			{Name: "eviction", Group: "policy", Version: "v1", Kind: "Eviction", Verbs: CreateOnly},
			connect("exec", "PodExecOptions", ConnectVerbs), connect("log", "Pod", []string{"get"}),
			connect("portforward", "PodPortForwardOptions", ConnectVerbs), {Name: "resize", Kind: "Pod", Verbs: SubresourceRW}, status("Pod")},
		New: func() metav1.Object { return &corev1.Pod{} }},
	{Version: "v1", Resource: "podtemplates", Singular: "podtemplate", Kind: "PodTemplate", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "podtemplates",
		New: func() metav1.Object { return &corev1.PodTemplate{} }},
	{Version: "v1", Resource: "replicationcontrollers", Singular: "replicationcontroller", Kind: "ReplicationController", Namespaced: true,
		ShortNames: []string{"rc"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "controllers", Generation: true,
		Subresources: []Subresource{scale(), status("ReplicationController")},
		New:          func() metav1.Object { return &corev1.ReplicationController{} }},
	{Version: "v1", Resource: "resourcequotas", Singular: "resourcequota", Kind: "ResourceQuota", Namespaced: true,
		ShortNames: []string{"quota"}, Verbs: AllVerbs, StoragePrefix: "resourcequotas",
		Subresources: []Subresource{status("ResourceQuota")},
		New:          func() metav1.Object { return &corev1.ResourceQuota{} }},
	{Version: "v1", Resource: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "secrets",
		New: func() metav1.Object { return &corev1.Secret{} }},
	{Version: "v1", Resource: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount", Namespaced: true,
		ShortNames: []string{"sa"}, Verbs: AllVerbs, StoragePrefix: "serviceaccounts",
		Subresources: []Subresource{{Name: "token", Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest", Verbs: CreateOnly}},
		New:          func() metav1.Object { return &corev1.ServiceAccount{} }},
	{Version: "v1", Resource: "services", Singular: "service", Kind: "Service", Namespaced: true,
		ShortNames: []string{"svc"}, Categories: []string{"all"}, Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, StoragePrefix: "services/specs",
		Subresources: []Subresource{status("Service")},
		New:          func() metav1.Object { return &corev1.Service{} }},

	// admissionregistration.k8s.io/v1: the admission webhooks the apiserver
	// calls (apiserver/webhook) and the CEL admission policies it evaluates
	// (apiserver/policy).
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations", Singular: "mutatingwebhookconfiguration", Kind: "MutatingWebhookConfiguration",
		Categories: []string{"api-extensions"}, Verbs: AllVerbs, StoragePrefix: "mutatingwebhookconfigurations",
		New: func() metav1.Object { return &admissionregistrationv1.MutatingWebhookConfiguration{} }},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies", Singular: "validatingadmissionpolicy", Kind: "ValidatingAdmissionPolicy",
		Categories: []string{"api-extensions"}, Verbs: AllVerbs, StoragePrefix: "validatingadmissionpolicies", Generation: true,
		Subresources: []Subresource{status("ValidatingAdmissionPolicy")},
		New:          func() metav1.Object { return &admissionregistrationv1.ValidatingAdmissionPolicy{} }},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings", Singular: "validatingadmissionpolicybinding", Kind: "ValidatingAdmissionPolicyBinding",
		Categories: []string{"api-extensions"}, Verbs: AllVerbs, StoragePrefix: "validatingadmissionpolicybindings", Generation: true,
		New: func() metav1.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{} }},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations", Singular: "validatingwebhookconfiguration", Kind: "ValidatingWebhookConfiguration",
		Categories: []string{"api-extensions"}, Verbs: AllVerbs, StoragePrefix: "validatingwebhookconfigurations",
		New: func() metav1.Object { return &admissionregistrationv1.ValidatingWebhookConfiguration{} }},

	// apiextensions.k8s.io/v1: CustomResourceDefinitions. The resources they
	// define are not in this table: each apiserver serves them from its own
	// registry, built from the CRDs in storage (apiserver/apiextensions).
	{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Singular: "customresourcedefinition", Kind: "CustomResourceDefinition",
		ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"}, Verbs: AllVerbs, StoragePrefix: "apiextensions.k8s.io/customresourcedefinitions", Generation: true,
		Subresources: []Subresource{status("CustomResourceDefinition")},
		New:          func() metav1.Object { return &apiextensionsv1.CustomResourceDefinition{} }},

	// apiregistration.k8s.io/v1: APIServices, one per served group version;
	// those with a service are proxied to an extension apiserver
	// (apiserver/aggregator.go).
	{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Singular: "apiservice", Kind: "APIService",
		Categories: []string{"api-extensions"}, Verbs: AllVerbs, StoragePrefix: "apiregistration.k8s.io/apiservices",
		Subresources: []Subresource{status("APIService")},
		New:          func() metav1.Object { return &apiregistrationv1.APIService{} }},

	// apps/v1
	{Group: "apps", Version: "v1", Resource: "controllerrevisions", Singular: "controllerrevision", Kind: "ControllerRevision", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "controllerrevisions",
		New: func() metav1.Object { return &appsv1.ControllerRevision{} }},
	{Group: "apps", Version: "v1", Resource: "daemonsets", Singular: "daemonset", Kind: "DaemonSet", Namespaced: true,
		ShortNames: []string{"ds"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "daemonsets", Generation: true,
		Subresources: []Subresource{status("DaemonSet")},
		New:          func() metav1.Object { return &appsv1.DaemonSet{} }},
	{Group: "apps", Version: "v1", Resource: "deployments", Singular: "deployment", Kind: "Deployment", Namespaced: true,
		ShortNames: []string{"deploy"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "deployments", Generation: true,
		Subresources: []Subresource{scale(), status("Deployment")},
		New:          func() metav1.Object { return &appsv1.Deployment{} }},
	{Group: "apps", Version: "v1", Resource: "replicasets", Singular: "replicaset", Kind: "ReplicaSet", Namespaced: true,
		ShortNames: []string{"rs"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "replicasets", Generation: true,
		Subresources: []Subresource{scale(), status("ReplicaSet")},
		New:          func() metav1.Object { return &appsv1.ReplicaSet{} }},
	{Group: "apps", Version: "v1", Resource: "statefulsets", Singular: "statefulset", Kind: "StatefulSet", Namespaced: true,
		ShortNames: []string{"sts"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "statefulsets", Generation: true,
		Subresources: []Subresource{scale(), status("StatefulSet")},
		New:          func() metav1.Object { return &appsv1.StatefulSet{} }},

	// authentication.k8s.io/v1. (kubectl 1.27's "auth whoami" asks for v1beta1,
	// which a 1.35 apiserver no longer serves: it fails there as against upstream.)
	{Group: "authentication.k8s.io", Version: "v1", Resource: "selfsubjectreviews", Singular: "selfsubjectreview", Kind: "SelfSubjectReview",
		Verbs: CreateOnly, NotStored: true, New: func() metav1.Object { return &authenticationv1.SelfSubjectReview{} }},
	{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews", Singular: "tokenreview", Kind: "TokenReview",
		Verbs: CreateOnly, NotStored: true, New: func() metav1.Object { return &authenticationv1.TokenReview{} }},

	// authorization.k8s.io/v1
	{Group: "authorization.k8s.io", Version: "v1", Resource: "localsubjectaccessreviews", Singular: "localsubjectaccessreview", Kind: "LocalSubjectAccessReview", Namespaced: true,
		Verbs: CreateOnly, NotStored: true, New: func() metav1.Object { return &authorizationv1.LocalSubjectAccessReview{} }},
	{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview",
		Verbs: CreateOnly, NotStored: true, New: func() metav1.Object { return &authorizationv1.SelfSubjectAccessReview{} }},
	{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview", Kind: "SelfSubjectRulesReview",
		Verbs: CreateOnly, NotStored: true, New: func() metav1.Object { return &authorizationv1.SelfSubjectRulesReview{} }},
	{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews", Singular: "subjectaccessreview", Kind: "SubjectAccessReview",
		Verbs: CreateOnly, NotStored: true, New: func() metav1.Object { return &authorizationv1.SubjectAccessReview{} }},

	// autoscaling/v2 is the preferred version and the stored one; autoscaling/v1
	// objects are converted to and from it (one key space, as upstream).
	{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler", Kind: "HorizontalPodAutoscaler", Namespaced: true,
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "horizontalpodautoscalers",
		Subresources: []Subresource{status("HorizontalPodAutoscaler")},
		New:          func() metav1.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }},
	{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler", Kind: "HorizontalPodAutoscaler", Namespaced: true,
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "horizontalpodautoscalers",
		Subresources: []Subresource{status("HorizontalPodAutoscaler")},
		New:          func() metav1.Object { return &autoscalingv1.HorizontalPodAutoscaler{} },
		Storage: &StorageConversion{
			New: func() metav1.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }, APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler",
			ToStorage: func(o metav1.Object) metav1.Object {
				return autoscalingv1.ToV2(o.(*autoscalingv1.HorizontalPodAutoscaler))
			},
			FromStorage: func(o metav1.Object) metav1.Object {
				return autoscalingv1.FromV2(o.(*autoscalingv2.HorizontalPodAutoscaler))
			},
		}},

	// batch/v1
	{Group: "batch", Version: "v1", Resource: "cronjobs", Singular: "cronjob", Kind: "CronJob", Namespaced: true,
		ShortNames: []string{"cj"}, Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "cronjobs", Generation: true,
		Subresources: []Subresource{status("CronJob")},
		New:          func() metav1.Object { return &batchv1.CronJob{} }},
	{Group: "batch", Version: "v1", Resource: "jobs", Singular: "job", Kind: "Job", Namespaced: true,
		Categories: []string{"all"}, Verbs: AllVerbs, StoragePrefix: "jobs", Generation: true,
		Subresources: []Subresource{status("Job")},
		New:          func() metav1.Object { return &batchv1.Job{} }},

	// certificates.k8s.io/v1
	{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests", Singular: "certificatesigningrequest", Kind: "CertificateSigningRequest",
		ShortNames: []string{"csr"}, Verbs: AllVerbs, StoragePrefix: "certificatesigningrequests",
		Subresources: []Subresource{{Name: "approval", Kind: "CertificateSigningRequest", Verbs: SubresourceRW}, status("CertificateSigningRequest")},
		New:          func() metav1.Object { return &certificatesv1.CertificateSigningRequest{} }},

	// coordination.k8s.io/v1
	{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Singular: "lease", Kind: "Lease", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "leases",
		New: func() metav1.Object { return &coordinationv1.Lease{} }},

	// discovery.k8s.io/v1
	{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Singular: "endpointslice", Kind: "EndpointSlice", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "endpointslices",
		New: func() metav1.Object { return &discoveryv1.EndpointSlice{} }},

	// events.k8s.io/v1
	{Group: "events.k8s.io", Version: "v1", Resource: "events", Singular: "event", Kind: "Event", Namespaced: true,
		ShortNames: []string{"ev"}, Verbs: AllVerbs, StoragePrefix: "events",
		New: func() metav1.Object { return &eventsv1.Event{} },
		Storage: &StorageConversion{
			New: func() metav1.Object { return &corev1.Event{} }, APIVersion: "v1", Kind: "Event",
			ToStorage:   func(o metav1.Object) metav1.Object { return eventsv1.ToCore(o.(*eventsv1.Event)) },
			FromStorage: func(o metav1.Object) metav1.Object { return eventsv1.FromCore(o.(*corev1.Event)) },
		}},

	// networking.k8s.io/v1
	{Group: "networking.k8s.io", Version: "v1", Resource: "ingressclasses", Singular: "ingressclass", Kind: "IngressClass",
		Verbs: AllVerbs, StoragePrefix: "ingressclasses", Generation: true,
		New: func() metav1.Object { return &networkingv1.IngressClass{} }},
	{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Singular: "ingress", Kind: "Ingress", Namespaced: true,
		ShortNames: []string{"ing"}, Verbs: AllVerbs, StoragePrefix: "ingress", Generation: true,
		Subresources: []Subresource{status("Ingress")},
		New:          func() metav1.Object { return &networkingv1.Ingress{} }},
	{Group: "networking.k8s.io", Version: "v1", Resource: "ipaddresses", Singular: "ipaddress", Kind: "IPAddress",
		ShortNames: []string{"ip"}, Verbs: AllVerbs, StoragePrefix: "ipaddresses",
		New: func() metav1.Object { return &networkingv1.IPAddress{} }},
	{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies", Singular: "networkpolicy", Kind: "NetworkPolicy", Namespaced: true,
		ShortNames: []string{"netpol"}, Verbs: AllVerbs, StoragePrefix: "networkpolicies", Generation: true,
		New: func() metav1.Object { return &networkingv1.NetworkPolicy{} }},
	{Group: "networking.k8s.io", Version: "v1", Resource: "servicecidrs", Singular: "servicecidr", Kind: "ServiceCIDR",
		Verbs: AllVerbs, StoragePrefix: "servicecidrs",
		Subresources: []Subresource{status("ServiceCIDR")},
		New:          func() metav1.Object { return &networkingv1.ServiceCIDR{} }},

	// flowcontrol.apiserver.k8s.io/v1
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas", Singular: "flowschema", Kind: "FlowSchema",
		Verbs: AllVerbs, StoragePrefix: "flowschemas", Generation: true,
		Subresources: []Subresource{status("FlowSchema")},
		New:          func() metav1.Object { return &flowcontrolv1.FlowSchema{} }},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "prioritylevelconfigurations", Singular: "prioritylevelconfiguration", Kind: "PriorityLevelConfiguration",
		Verbs: AllVerbs, StoragePrefix: "prioritylevelconfigurations", Generation: true,
		Subresources: []Subresource{status("PriorityLevelConfiguration")},
		New:          func() metav1.Object { return &flowcontrolv1.PriorityLevelConfiguration{} }},

	// node.k8s.io/v1
	{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses", Singular: "runtimeclass", Kind: "RuntimeClass",
		Verbs: AllVerbs, StoragePrefix: "runtimeclasses",
		New: func() metav1.Object { return &nodev1.RuntimeClass{} }},

	// policy/v1
	{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Singular: "poddisruptionbudget", Kind: "PodDisruptionBudget", Namespaced: true,
		ShortNames: []string{"pdb"}, Verbs: AllVerbs, StoragePrefix: "poddisruptionbudgets", Generation: true,
		Subresources: []Subresource{status("PodDisruptionBudget")},
		New:          func() metav1.Object { return &policyv1.PodDisruptionBudget{} }},

	// rbac.authorization.k8s.io/v1
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings", Singular: "clusterrolebinding", Kind: "ClusterRoleBinding",
		Verbs: AllVerbs, StoragePrefix: "clusterrolebindings",
		New: func() metav1.Object { return &rbacv1.ClusterRoleBinding{} }},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Singular: "clusterrole", Kind: "ClusterRole",
		Verbs: AllVerbs, StoragePrefix: "clusterroles",
		New: func() metav1.Object { return &rbacv1.ClusterRole{} }},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Singular: "rolebinding", Kind: "RoleBinding", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "rolebindings",
		New: func() metav1.Object { return &rbacv1.RoleBinding{} }},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Singular: "role", Kind: "Role", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "roles",
		New: func() metav1.Object { return &rbacv1.Role{} }},

	// resource.k8s.io/v1
	{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses", Singular: "deviceclass", Kind: "DeviceClass",
		Verbs: AllVerbs, StoragePrefix: "deviceclasses", Generation: true,
		New: func() metav1.Object { return &resourcev1.DeviceClass{} }},
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims", Singular: "resourceclaim", Kind: "ResourceClaim", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "resourceclaims",
		Subresources: []Subresource{status("ResourceClaim")},
		New:          func() metav1.Object { return &resourcev1.ResourceClaim{} }},
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaimtemplates", Singular: "resourceclaimtemplate", Kind: "ResourceClaimTemplate", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "resourceclaimtemplates",
		New: func() metav1.Object { return &resourcev1.ResourceClaimTemplate{} }},
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices", Singular: "resourceslice", Kind: "ResourceSlice",
		Verbs: AllVerbs, StoragePrefix: "resourceslices", Generation: true,
		New: func() metav1.Object { return &resourcev1.ResourceSlice{} }},

	// scheduling.k8s.io/v1
	{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses", Singular: "priorityclass", Kind: "PriorityClass",
		ShortNames: []string{"pc"}, Verbs: AllVerbs, StoragePrefix: "priorityclasses",
		New: func() metav1.Object { return &schedulingv1.PriorityClass{} }},

	// storage.k8s.io/v1
	{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers", Singular: "csidriver", Kind: "CSIDriver",
		Verbs: AllVerbs, StoragePrefix: "csidrivers", GenerationOnSpecChange: true,
		New: func() metav1.Object { return &storagev1.CSIDriver{} }},
	{Group: "storage.k8s.io", Version: "v1", Resource: "csinodes", Singular: "csinode", Kind: "CSINode",
		Verbs: AllVerbs, StoragePrefix: "csinodes",
		New: func() metav1.Object { return &storagev1.CSINode{} }},
	{Group: "storage.k8s.io", Version: "v1", Resource: "csistoragecapacities", Singular: "csistoragecapacity", Kind: "CSIStorageCapacity", Namespaced: true,
		Verbs: AllVerbs, StoragePrefix: "csistoragecapacities",
		New: func() metav1.Object { return &storagev1.CSIStorageCapacity{} }},
	{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses", Singular: "storageclass", Kind: "StorageClass",
		ShortNames: []string{"sc"}, Verbs: AllVerbs, StoragePrefix: "storageclasses",
		New: func() metav1.Object { return &storagev1.StorageClass{} }},
	{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattachments", Singular: "volumeattachment", Kind: "VolumeAttachment",
		Verbs: AllVerbs, StoragePrefix: "volumeattachments",
		Subresources: []Subresource{status("VolumeAttachment")},
		New:          func() metav1.Object { return &storagev1.VolumeAttachment{} }},
	{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattributesclasses", Singular: "volumeattributesclass", Kind: "VolumeAttributesClass",
		ShortNames: []string{"vac"}, Verbs: AllVerbs, StoragePrefix: "volumeattributesclasses",
		New: func() metav1.Object { return &storagev1.VolumeAttributesClass{} }},
}
