// Package defaults fills the fields a real kube-apiserver fills when an object
// is created or updated and the client left them empty: restartPolicy Always,
// imagePullPolicy IfNotPresent, strategy RollingUpdate 25%/25%, and so on.
// Users see every one of them in `kubectl get -o yaml` and `kubectl describe`,
// so the rules are upstream's, one function per upstream SetDefaults_* function
// and with the same name in its doc comment.
//
// Upstream: pkg/apis/core/v1/defaults.go, pkg/apis/apps/v1/defaults.go,
// pkg/apis/batch/v1/defaults.go, pkg/apis/rbac/v1/defaults.go,
// pkg/apis/networking/v1 and pkg/apis/autoscaling/v1 and v2 defaults.go and friends,
// plus what their generated defaulters (zz_generated.defaults.go) add: the
// walk into nested types, the rounding of every resource list and the
// "+default=" markers of k8s.io/api (ports' protocol TCP, ...).
// Defaulting runs on the decoded object, before admission and validation.
package defaults

import (
	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/flowcontrolv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/resourcev1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/api/storagev1"
)

// Default applies the defaults of obj's kind in place. Kinds without defaults
// are left alone.
func Default(obj metav1.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		setDefaultsPod(o)
	case *corev1.ReplicationController:
		setDefaultsReplicationController(o)
	case *corev1.PodTemplate:
		setDefaultsPodTemplateSpec(&o.Template)
	case *corev1.Service:
		setDefaultsService(o)
	case *corev1.Endpoints:
		setDefaultsEndpoints(o)
	case *corev1.Namespace:
		setDefaultsNamespace(o)
	case *corev1.Node:
		setDefaultsNodeStatus(&o.Status)
	case *corev1.Secret:
		setDefaultsSecret(o)
	case *corev1.PersistentVolume:
		setDefaultsPersistentVolume(o)
	case *corev1.PersistentVolumeClaim:
		setDefaultsPersistentVolumeClaim(o)
	case *corev1.LimitRange:
		setDefaultsLimitRange(o)
	case *corev1.ResourceQuota:
		setDefaultsResourceQuota(o)
	case *corev1.ConfigMap:
		setDefaultsConfigMap(o)
	case *appsv1.Deployment:
		setDefaultsDeployment(o)
	case *appsv1.ReplicaSet:
		setDefaultsReplicaSet(o)
	case *appsv1.DaemonSet:
		setDefaultsDaemonSet(o)
	case *appsv1.StatefulSet:
		setDefaultsStatefulSet(o)
	case *batchv1.Job:
		setDefaultsJob(o)
	case *batchv1.CronJob:
		setDefaultsCronJob(o)
	case *discoveryv1.EndpointSlice:
		setDefaultsEndpointSlice(o)
	case *autoscalingv1.HorizontalPodAutoscaler:
		setDefaultsHorizontalPodAutoscalerV1(o)
	case *autoscalingv2.HorizontalPodAutoscaler:
		setDefaultsHorizontalPodAutoscaler(o)
	case *networkingv1.NetworkPolicy:
		setDefaultsNetworkPolicy(o)
	case *networkingv1.IngressClass:
		setDefaultsIngressClass(o)
	case *schedulingv1.PriorityClass:
		setDefaultsPriorityClass(o)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		setDefaultsValidatingWebhookConfiguration(o)
	case *apiregistrationv1.APIService:
		setDefaultsAPIService(o)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		setDefaultsMutatingWebhookConfiguration(o)
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		setDefaultsValidatingAdmissionPolicy(o)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		setDefaultsValidatingAdmissionPolicyBinding(o)
	case *resourcev1.ResourceClaim:
		setDefaultsResourceClaim(o)
	case *resourcev1.ResourceClaimTemplate:
		setDefaultsResourceClaimSpec(&o.Spec.Spec)
	case *resourcev1.ResourceSlice:
		setDefaultsResourceSlice(o)
	case *storagev1.StorageClass:
		setDefaultsStorageClass(o)
	case *storagev1.CSIDriver:
		setDefaultsCSIDriver(o)
	case *storagev1.VolumeAttachment:
		setDefaultsVolumeAttachment(o)
	case *rbacv1.Role:
		setDefaultsRole(o)
	case *rbacv1.ClusterRole:
		setDefaultsClusterRole(o)
	case *rbacv1.RoleBinding:
		setDefaultsRoleBinding(o)
	case *rbacv1.ClusterRoleBinding:
		setDefaultsClusterRoleBinding(o)
	case *flowcontrolv1.FlowSchema:
		setDefaultsFlowSchema(o)
	case *flowcontrolv1.PriorityLevelConfiguration:
		setDefaultsPriorityLevelConfiguration(o)
	case *authenticationv1.TokenRequest:
		setDefaultsTokenRequestSpec(&o.Spec)
	}
}

func ptrTo[T any](v T) *T { return &v }
