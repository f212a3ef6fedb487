package printers

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/api/appsv1"
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
	"kubik/ch01-apiserver/apiserver/selection"
)

// printerFor picks the printer of obj's kind. The apiserver always renders
// the wide form (upstream passes GenerateOptions{Wide: true}); kubectl
// hides priority-1 columns itself.
func printerFor(obj metav1.Object) printer {
	switch obj.(type) {
	case *corev1.Pod:
		return podPrinter
	case *corev1.Node:
		return nodePrinter
	case *corev1.Namespace:
		return namespacePrinter
	case *corev1.Service:
		return servicePrinter
	case *corev1.Endpoints:
		return endpointsPrinter
	case *corev1.ConfigMap:
		return configMapPrinter
	case *corev1.Secret:
		return secretPrinter
	case *corev1.Event, *eventsv1.Event:
		return eventPrinter
	case *corev1.ServiceAccount:
		return serviceAccountPrinter
	case *corev1.PersistentVolume:
		return persistentVolumePrinter
	case *corev1.PersistentVolumeClaim:
		return persistentVolumeClaimPrinter
	case *corev1.ReplicationController:
		return replicationControllerPrinter
	case *policyv1.PodDisruptionBudget:
		return podDisruptionBudgetPrinter
	case *appsv1.Deployment:
		return deploymentPrinter
	case *appsv1.ReplicaSet:
		return replicaSetPrinter
	case *appsv1.DaemonSet:
		return daemonSetPrinter
	case *appsv1.StatefulSet:
		return statefulSetPrinter
	case *batchv1.Job:
		return jobPrinter
	case *batchv1.CronJob:
		return cronJobPrinter
	case *coordinationv1.Lease:
		return leasePrinter
	case *discoveryv1.EndpointSlice:
		return endpointSlicePrinter
	case *schedulingv1.PriorityClass:
		return priorityClassPrinter
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		return validatingWebhookConfigurationPrinter
	case *apiregistrationv1.APIService:
		return apiServicePrinter
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		return mutatingWebhookConfigurationPrinter
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		return validatingAdmissionPolicyPrinter
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		return validatingAdmissionPolicyBindingPrinter
	case *resourcev1.DeviceClass:
		return deviceClassPrinter
	case *resourcev1.ResourceClaim:
		return resourceClaimPrinter
	case *resourcev1.ResourceClaimTemplate:
		return resourceClaimTemplatePrinter
	case *resourcev1.ResourceSlice:
		return resourceSlicePrinter
	case *storagev1.StorageClass:
		return storageClassPrinter
	case *storagev1.CSIDriver:
		return csiDriverPrinter
	case *storagev1.CSINode:
		return csiNodePrinter
	case *storagev1.CSIStorageCapacity:
		return csiStorageCapacityPrinter
	case *storagev1.VolumeAttachment:
		return volumeAttachmentPrinter
	case *storagev1.VolumeAttributesClass:
		return volumeAttributesClassPrinter
	case *certificatesv1.CertificateSigningRequest:
		return certificateSigningRequestPrinter
	case *rbacv1.RoleBinding, *rbacv1.ClusterRoleBinding:
		return bindingPrinter
	case *networkingv1.Ingress:
		return ingressPrinter
	case *networkingv1.IngressClass:
		return ingressClassPrinter
	case *networkingv1.NetworkPolicy:
		return networkPolicyPrinter
	case *networkingv1.ServiceCIDR:
		return serviceCIDRPrinter
	case *networkingv1.IPAddress:
		return ipAddressPrinter
	case *autoscalingv2.HorizontalPodAutoscaler:
		return horizontalPodAutoscalerPrinter
	case *autoscalingv1.HorizontalPodAutoscaler:
		return hpaV1Printer
	case *nodev1.RuntimeClass:
		return runtimeClassPrinter
	case *flowcontrolv1.FlowSchema:
		return flowSchemaPrinter
	case *flowcontrolv1.PriorityLevelConfiguration:
		return priorityLevelConfigurationPrinter
	case *appsv1.ControllerRevision:
		return controllerRevisionPrinter
	case *corev1.ResourceQuota:
		return resourceQuotaPrinter
	case *corev1.PodTemplate:
		return podTemplatePrinter
	}
	return defaultPrinter
}

// Descriptions shared by the workload printers.
const (
	containersDescription = "Names of each container in the template."
	imagesDescription     = "Images referenced by each container in the template."
)

// Pods.

var (
	podSucceededConditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: "True", Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	podFailedConditions    = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: "True", Reason: string(corev1.PodFailed), Message: "The pod failed."}}
)

var podPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
		column("Status", "string", "The aggregate status of the containers in this pod."),
		column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
		ageColumn,
		wide(column("IP", "string", doc("core/v1 PodStatus.podIP"))),
		wide(column("Node", "string", doc("core/v1 PodSpec.nodeName"))),
		wide(column("Nominated Node", "string", doc("core/v1 PodStatus.nominatedNodeName"))),
		wide(column("Readiness Gates", "string", doc("core/v1 PodSpec.readinessGates"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		return podRow(obj.(*corev1.Pod), now)
	},
}

func isRestartableInitContainer(c *corev1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podRow computes the pod's cells the way upstream's printPod does. The
// Status column walks init containers first (Init:N/M, Init:<reason>), then
// the regular containers from last to first, so the first container's
// waiting or terminated reason wins (CrashLoopBackOff, Completed, Error).
func podRow(pod *corev1.Pod, now time.Time) ([]any, []metav1.TableRowCondition) {
	restarts := 0
	restartableInitRestarts := 0
	totalContainers := len(pod.Spec.Containers)
	readyContainers := 0
	var lastRestart, lastRestartableInitRestart time.Time

	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}

	var conditions []metav1.TableRowCondition
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		conditions = podSucceededConditions
	case corev1.PodFailed:
		conditions = podFailedConditions
	}

	initContainers := map[string]*corev1.Container{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		initContainers[c.Name] = c
		if isRestartableInitContainer(c) {
			totalContainers++ // sidecars count as containers
		}
	}

	later := func(latest *time.Time, state corev1.ContainerState) {
		if t := state.Terminated; t != nil && latest.Before(t.FinishedAt.Time) {
			*latest = t.FinishedAt.Time
		}
	}

	initializing := false
	for i, status := range pod.Status.InitContainerStatuses {
		restarts += int(status.RestartCount)
		later(&lastRestart, status.LastTerminationState)
		sidecar := isRestartableInitContainer(initContainers[status.Name])
		if sidecar {
			restartableInitRestarts += int(status.RestartCount)
			later(&lastRestartableInitRestart, status.LastTerminationState)
		}
		terminated, waiting := status.State.Terminated, status.State.Waiting
		switch {
		case terminated != nil && terminated.ExitCode == 0:
			continue
		case sidecar && status.Started != nil && *status.Started:
			if status.Ready {
				readyContainers++
			}
			continue
		case terminated != nil:
			switch {
			case terminated.Reason != "":
				reason = "Init:" + terminated.Reason
			case terminated.Signal != 0:
				reason = fmt.Sprintf("Init:Signal:%d", terminated.Signal)
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", terminated.ExitCode)
			}
		case waiting != nil && waiting.Reason != "" && waiting.Reason != "PodInitializing":
			reason = "Init:" + waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}

	if !initializing || podInitialized(pod) {
		restarts = restartableInitRestarts
		lastRestart = lastRestartableInitRestart
		hasRunning := false
		errorReason := ""
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			status := pod.Status.ContainerStatuses[i]
			restarts += int(status.RestartCount)
			later(&lastRestart, status.LastTerminationState)
			switch {
			case status.State.Waiting != nil && status.State.Waiting.Reason != "":
				reason = status.State.Waiting.Reason
			case status.State.Terminated != nil:
				t := status.State.Terminated
				switch {
				case t.Reason != "":
					reason = t.Reason
				case t.Signal != 0:
					reason = fmt.Sprintf("Signal:%d", t.Signal)
				default:
					reason = fmt.Sprintf("ExitCode:%d", t.ExitCode)
				}
				if t.ExitCode != 0 {
					errorReason = reason
				}
			case status.Ready && status.State.Running != nil:
				hasRunning = true
				readyContainers++
			}
		}
		// A pod whose last container completed but others still run is
		// reported by the state of the running ones.
		if reason == "Completed" {
			switch {
			case hasRunning && podReady(pod):
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}

	terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	if pod.DeletionTimestamp != nil && pod.Status.Reason == "NodeLost" {
		reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && !terminal {
		reason = "Terminating"
	}

	restartsCell := strconv.Itoa(restarts)
	if restarts != 0 && !lastRestart.IsZero() {
		restartsCell = fmt.Sprintf("%d (%s ago)", restarts, age(metav1.Time{Time: lastRestart}, now))
	}

	podIP := "<none>"
	if len(pod.Status.PodIPs) > 0 && pod.Status.PodIPs[0].IP != "" {
		podIP = pod.Status.PodIPs[0].IP
	}
	readinessGates := "<none>"
	if len(pod.Spec.ReadinessGates) > 0 {
		trueConditions := 0
		for _, gate := range pod.Spec.ReadinessGates {
			for _, c := range pod.Status.Conditions {
				if c.Type == gate.ConditionType {
					if c.Status == corev1.ConditionTrue {
						trueConditions++
					}
					break
				}
			}
		}
		readinessGates = fmt.Sprintf("%d/%d", trueConditions, len(pod.Spec.ReadinessGates))
	}

	return []any{
		pod.Name,
		fmt.Sprintf("%d/%d", readyContainers, totalContainers),
		reason,
		restartsCell,
		age(pod.CreationTimestamp, now),
		podIP,
		orNone(pod.Spec.NodeName),
		orNone(pod.Status.NominatedNodeName),
		readinessGates,
	}, conditions
}

func podInitialized(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodInitialized {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// Nodes.

var nodePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Status", "string", "The status of the node"),
		column("Roles", "string", "The roles of the node"),
		ageColumn,
		column("Version", "string", doc("core/v1 NodeSystemInfo.kubeletVersion")),
		wide(column("Internal-IP", "string", doc("core/v1 NodeStatus.addresses"))),
		wide(column("External-IP", "string", doc("core/v1 NodeStatus.addresses"))),
		wide(column("OS-Image", "string", doc("core/v1 NodeSystemInfo.osImage"))),
		wide(column("Kernel-Version", "string", doc("core/v1 NodeSystemInfo.kernelVersion"))),
		wide(column("Container-Runtime", "string", doc("core/v1 NodeSystemInfo.containerRuntimeVersion"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		node := obj.(*corev1.Node)
		// Only the Ready condition shows: Ready, NotReady, or Unknown when
		// the kubelet never reported it.
		var status []string
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				if c.Status == corev1.ConditionTrue {
					status = []string{string(c.Type)}
				} else {
					status = []string{"Not" + string(c.Type)}
				}
			}
		}
		if len(status) == 0 {
			status = []string{"Unknown"}
		}
		if node.Spec.Unschedulable {
			status = append(status, "SchedulingDisabled")
		}
		roles := strings.Join(nodeRoles(node), ",")
		info := node.Status.NodeInfo
		return []any{
			node.Name,
			strings.Join(status, ","),
			orNone(roles),
			age(node.CreationTimestamp, now),
			info.KubeletVersion,
			nodeAddress(node, corev1.NodeInternalIP),
			nodeAddress(node, corev1.NodeExternalIP),
			orUnknown(info.OSImage),
			orUnknown(info.KernelVersion),
			orUnknown(info.ContainerRuntimeVersion),
		}, nil
	},
}

// nodeRoles collects roles from node-role.kubernetes.io/<role> labels and
// the older kubernetes.io/role=<role> label, sorted.
func nodeRoles(node *corev1.Node) []string {
	var roles []string
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if role := strings.TrimPrefix(k, "node-role.kubernetes.io/"); role != "" {
				roles = append(roles, role)
			}
		case k == "kubernetes.io/role" && v != "":
			roles = append(roles, v)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

func nodeAddress(node *corev1.Node, typ corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == typ {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// Namespaces, config maps, secrets, service accounts.

var namespacePrinter = printer{
	columns: []metav1.TableColumnDefinition{nameColumn, column("Status", "string", "The status of the namespace"), ageColumn},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ns := obj.(*corev1.Namespace)
		return []any{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp, now)}, nil
	},
}

var configMapPrinter = printer{
	columns: []metav1.TableColumnDefinition{nameColumn, column("Data", "string", doc("core/v1 ConfigMap.data")), ageColumn},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		cm := obj.(*corev1.ConfigMap)
		return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), age(cm.CreationTimestamp, now)}, nil
	},
}

var secretPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Type", "string", doc("core/v1 Secret.type")),
		column("Data", "string", doc("core/v1 Secret.data")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		s := obj.(*corev1.Secret)
		// Upstream counts the internal object's data, into which stringData
		// has been merged.
		keys := len(s.Data)
		for k := range s.StringData {
			if _, ok := s.Data[k]; !ok {
				keys++
			}
		}
		return []any{s.Name, string(s.Type), int64(keys), age(s.CreationTimestamp, now)}, nil
	},
}

// serviceAccountPrinter: NAME and AGE only. The SECRETS column went away
// upstream once ServiceAccounts stopped getting token Secrets (1.24).
var serviceAccountPrinter = printer{
	columns: []metav1.TableColumnDefinition{nameColumn, ageColumn},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		sa := obj.(*corev1.ServiceAccount)
		return []any{sa.Name, age(sa.CreationTimestamp, now)}, nil
	},
}

// Services and endpoints.

var servicePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Type", "string", doc("core/v1 ServiceSpec.type")),
		column("Cluster-IP", "string", doc("core/v1 ServiceSpec.clusterIP")),
		column("External-IP", "string", doc("core/v1 ServiceSpec.externalIPs")),
		column("Port(s)", "string", doc("core/v1 ServiceSpec.ports")),
		ageColumn,
		wide(column("Selector", "string", doc("core/v1 ServiceSpec.selector"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		svc := obj.(*corev1.Service)
		clusterIP := "<none>" // headless services show "None", their clusterIP
		if len(svc.Spec.ClusterIPs) > 0 {
			clusterIP = svc.Spec.ClusterIPs[0]
		} else if svc.Spec.ClusterIP != "" {
			clusterIP = svc.Spec.ClusterIP
		}
		ports := servicePorts(svc.Spec.Ports)
		if ports == "" {
			ports = "<none>"
		}
		return []any{
			svc.Name,
			string(svc.Spec.Type),
			clusterIP,
			serviceExternalIP(svc),
			ports,
			age(svc.CreationTimestamp, now),
			formatLabels(svc.Spec.Selector),
		}, nil
	},
}

// serviceExternalIP is upstream's getServiceExternalIP in its wide form:
// external IPs, load balancer ingress, "<pending>" for a load balancer not
// yet provisioned, the DNS name of an ExternalName service.
func serviceExternalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		var ingress []string
		for _, in := range svc.Status.LoadBalancer.Ingress {
			switch {
			case in.IP != "":
				ingress = append(ingress, in.IP)
			case in.Hostname != "":
				ingress = append(ingress, in.Hostname)
			}
		}
		slices.Sort(ingress)
		ingress = slices.Compact(ingress)
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(append(ingress, svc.Spec.ExternalIPs...), ",")
		}
		if len(ingress) > 0 {
			return strings.Join(ingress, ",")
		}
		return "<pending>"
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// servicePorts prints "80/TCP", or "80:30080/TCP" with a node port.
func servicePorts(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			pieces[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

// formatLabels prints a plain selector map as "k=v,k2=v2" (sorted), or
// "<none>", as upstream's labels.FormatLabels.
func formatLabels(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

var endpointsPrinter = printer{
	columns: []metav1.TableColumnDefinition{nameColumn, column("Endpoints", "string", doc("core/v1 Endpoints.subsets")), ageColumn},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ep := obj.(*corev1.Endpoints)
		return []any{ep.Name, formatEndpoints(ep), age(ep.CreationTimestamp, now)}, nil
	},
}

// formatEndpoints lists up to three "ip:port" pairs (bare IPs for subsets
// without ports) and says how many more there are.
func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	const max = 3
	var list []string
	more := false
	count := 0
	add := func(s string) {
		if len(list) == max {
			more = true
			return
		}
		list = append(list, s)
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, port := range ss.Ports {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(port.Port))))
			}
		}
	}
	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
}

var endpointSlicePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("AddressType", "string", doc("discovery/v1beta1 EndpointSlice.addressType")),
		column("Ports", "string", doc("discovery/v1beta1 EndpointSlice.ports")),
		column("Endpoints", "string", doc("discovery/v1beta1 EndpointSlice.endpoints")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		es := obj.(*discoveryv1.EndpointSlice)
		var ports []string
		for _, p := range es.Ports {
			switch {
			case p.Port != nil:
				ports = append(ports, strconv.Itoa(int(*p.Port)))
			case p.Name != nil:
				ports = append(ports, *p.Name)
			default:
				ports = append(ports, "*")
			}
		}
		var addresses []string
		for _, e := range es.Endpoints {
			addresses = append(addresses, e.Addresses...)
		}
		return []any{es.Name, string(es.AddressType), listWithMore(ports), listWithMore(addresses), age(es.CreationTimestamp, now)}, nil
	},
}

// listWithMore shows the first three items and "+ N more...", or
// "<unset>" for none.
func listWithMore(items []string) string {
	const max = 3
	if len(items) > max {
		return fmt.Sprintf("%s + %d more...", strings.Join(items[:max], ","), len(items)-max)
	}
	if len(items) == 0 {
		return "<unset>"
	}
	return strings.Join(items, ",")
}

// Events, core and events.k8s.io (converted to core first, as upstream's
// storage does).

var eventPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		column("Last Seen", "string", doc("core/v1 Event.lastTimestamp")),
		column("Type", "string", doc("core/v1 Event.type")),
		column("Reason", "string", doc("core/v1 Event.reason")),
		column("Object", "string", doc("core/v1 Event.involvedObject")),
		wide(column("Subobject", "string", doc("core/v1 ObjectReference.fieldPath"))),
		wide(column("Source", "string", doc("core/v1 Event.source"))),
		column("Message", "string", doc("core/v1 Event.message")),
		wide(column("First Seen", "string", doc("core/v1 Event.firstTimestamp"))),
		wide(column("Count", "string", doc("core/v1 Event.count"))),
		{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: doc("meta/v1 ObjectMeta.name")},
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ev, ok := obj.(*corev1.Event)
		if !ok {
			ev = eventsv1.ToCore(obj.(*eventsv1.Event))
		}
		return eventRow(ev, now), nil
	},
}

// eventRow: first seen from firstTimestamp or eventTime; last seen from
// lastTimestamp, the series, or first seen; count 1 for a singleton event
// of the new API.
func eventRow(ev *corev1.Event, now time.Time) []any {
	firstSeen := age(ev.FirstTimestamp, now)
	if ev.FirstTimestamp.IsZero() {
		firstSeen = ageMicro(ev.EventTime, now)
	}
	lastSeen := age(ev.LastTimestamp, now)
	if ev.LastTimestamp.IsZero() {
		lastSeen = firstSeen
	}
	count := ev.Count
	if ev.Series != nil {
		lastSeen = ageMicro(ev.Series.LastObservedTime, now)
		count = ev.Series.Count
	} else if count == 0 {
		count = 1
	}
	target := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		target += "/" + ev.InvolvedObject.Name
	}
	source := firstNonEmpty(ev.Source.Component, ev.ReportingController)
	if host := firstNonEmpty(ev.Source.Host, ev.ReportingInstance); host != "" {
		source += ", " + host
	}
	return []any{
		lastSeen,
		ev.Type,
		ev.Reason,
		target,
		ev.InvolvedObject.FieldPath,
		source,
		strings.TrimSpace(ev.Message),
		firstSeen,
		int64(count),
		ev.Name,
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Persistent volumes and claims.

var persistentVolumePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Capacity", "string", doc("core/v1 PersistentVolumeSpec.capacity")),
		column("Access Modes", "string", doc("core/v1 PersistentVolumeSpec.accessModes")),
		column("Reclaim Policy", "string", doc("core/v1 PersistentVolumeSpec.persistentVolumeReclaimPolicy")),
		column("Status", "string", doc("core/v1 PersistentVolumeStatus.phase")),
		column("Claim", "string", doc("core/v1 PersistentVolumeSpec.claimRef")),
		column("StorageClass", "string", "StorageClass of the pv"),
		column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
		column("Reason", "string", doc("core/v1 PersistentVolumeStatus.reason")),
		ageColumn,
		wide(column("VolumeMode", "string", doc("core/v1 PersistentVolumeSpec.volumeMode"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		pv := obj.(*corev1.PersistentVolume)
		claim := ""
		if pv.Spec.ClaimRef != nil {
			claim = pv.Spec.ClaimRef.Namespace + "/" + pv.Spec.ClaimRef.Name
		}
		phase := string(pv.Status.Phase)
		if pv.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		class, ok := pv.Annotations[corev1.BetaStorageClassAnnotation]
		if !ok {
			class = pv.Spec.StorageClassName
		}
		capacity := pv.Spec.Capacity[corev1.ResourceStorage]
		return []any{
			pv.Name,
			capacity.String(),
			accessModes(pv.Spec.AccessModes),
			string(pv.Spec.PersistentVolumeReclaimPolicy),
			phase,
			claim,
			class,
			derefOr(pv.Spec.VolumeAttributesClassName, "<unset>"),
			pv.Status.Reason,
			age(pv.CreationTimestamp, now),
			volumeMode(pv.Spec.VolumeMode),
		}, nil
	},
}

var persistentVolumeClaimPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Status", "string", doc("core/v1 PersistentVolumeClaimStatus.phase")),
		column("Volume", "string", doc("core/v1 PersistentVolumeClaimSpec.volumeName")),
		column("Capacity", "string", doc("core/v1 PersistentVolumeClaimStatus.capacity")),
		column("Access Modes", "string", doc("core/v1 PersistentVolumeClaimStatus.accessModes")),
		column("StorageClass", "string", "StorageClass of the pvc"),
		column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
		ageColumn,
		wide(column("VolumeMode", "string", doc("core/v1 PersistentVolumeClaimSpec.volumeMode"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		pvc := obj.(*corev1.PersistentVolumeClaim)
		phase := string(pvc.Status.Phase)
		if pvc.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		// Capacity and access modes show once the claim is bound.
		capacity, modes := "", ""
		if pvc.Spec.VolumeName != "" {
			modes = accessModes(pvc.Status.AccessModes)
			q := pvc.Status.Capacity[corev1.ResourceStorage]
			capacity = q.String()
		}
		class, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]
		if !ok {
			class = derefOr(pvc.Spec.StorageClassName, "")
		}
		return []any{
			pvc.Name,
			phase,
			pvc.Spec.VolumeName,
			capacity,
			modes,
			class,
			derefOr(pvc.Spec.VolumeAttributesClassName, "<unset>"),
			age(pvc.CreationTimestamp, now),
			volumeMode(pvc.Spec.VolumeMode),
		}, nil
	},
}

// accessModes abbreviates access modes in a fixed order: RWO, ROX, RWX, RWOP.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{
		{corev1.ReadWriteOnce, "RWO"},
		{corev1.ReadOnlyMany, "ROX"},
		{corev1.ReadWriteMany, "RWX"},
		{corev1.ReadWriteOncePod, "RWOP"},
	} {
		if slices.Contains(modes, m.mode) {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

func derefOr(s *string, fallback string) string {
	if s == nil {
		return fallback
	}
	return *s
}

func derefInt32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// Workloads.

// containerCells joins container names and images with ",".
func containerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	im := make([]string, len(containers))
	for i, c := range containers {
		n[i], im[i] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(im, ",")
}

var deploymentPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Ready", "string", "Number of the pod with ready state"),
		column("Up-to-date", "string", doc("extensions/v1beta1 DeploymentStatus.updatedReplicas")),
		column("Available", "string", doc("extensions/v1beta1 DeploymentStatus.availableReplicas")),
		ageColumn,
		wide(column("Containers", "string", containersDescription)),
		wide(column("Images", "string", imagesDescription)),
		wide(column("Selector", "string", doc("extensions/v1beta1 DeploymentSpec.selector"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		d := obj.(*appsv1.Deployment)
		selector := "<invalid>"
		if sel, err := selection.FromLabelSelector(d.Spec.Selector); err == nil {
			selector = sel.String()
		}
		names, images := containerCells(d.Spec.Template.Spec.Containers)
		return []any{
			d.Name,
			fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, derefInt32(d.Spec.Replicas)),
			int64(d.Status.UpdatedReplicas),
			int64(d.Status.AvailableReplicas),
			age(d.CreationTimestamp, now),
			names, images, selector,
		}, nil
	},
}

var replicaSetPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Desired", "integer", doc("extensions/v1beta1 ReplicaSetSpec.replicas")),
		column("Current", "integer", doc("extensions/v1beta1 ReplicaSetStatus.replicas")),
		column("Ready", "integer", doc("extensions/v1beta1 ReplicaSetStatus.readyReplicas")),
		ageColumn,
		wide(column("Containers", "string", containersDescription)),
		wide(column("Images", "string", imagesDescription)),
		wide(column("Selector", "string", doc("extensions/v1beta1 ReplicaSetSpec.selector"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		rs := obj.(*appsv1.ReplicaSet)
		names, images := containerCells(rs.Spec.Template.Spec.Containers)
		return []any{
			rs.Name,
			int64(derefInt32(rs.Spec.Replicas)),
			int64(rs.Status.Replicas),
			int64(rs.Status.ReadyReplicas),
			age(rs.CreationTimestamp, now),
			names, images, selection.FormatLabelSelector(rs.Spec.Selector),
		}, nil
	},
}

var daemonSetPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Desired", "integer", doc("extensions/v1beta1 DaemonSetStatus.desiredNumberScheduled")),
		column("Current", "integer", doc("extensions/v1beta1 DaemonSetStatus.currentNumberScheduled")),
		column("Ready", "integer", doc("extensions/v1beta1 DaemonSetStatus.numberReady")),
		column("Up-to-date", "integer", doc("extensions/v1beta1 DaemonSetStatus.updatedNumberScheduled")),
		column("Available", "integer", doc("extensions/v1beta1 DaemonSetStatus.numberAvailable")),
		column("Node Selector", "string", doc("core/v1 PodSpec.nodeSelector")),
		ageColumn,
		wide(column("Containers", "string", containersDescription)),
		wide(column("Images", "string", imagesDescription)),
		wide(column("Selector", "string", doc("extensions/v1beta1 DaemonSetSpec.selector"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ds := obj.(*appsv1.DaemonSet)
		names, images := containerCells(ds.Spec.Template.Spec.Containers)
		return []any{
			ds.Name,
			int64(ds.Status.DesiredNumberScheduled),
			int64(ds.Status.CurrentNumberScheduled),
			int64(ds.Status.NumberReady),
			int64(ds.Status.UpdatedNumberScheduled),
			int64(ds.Status.NumberAvailable),
			formatLabels(ds.Spec.Template.Spec.NodeSelector),
			age(ds.CreationTimestamp, now),
			names, images, selection.FormatLabelSelector(ds.Spec.Selector),
		}, nil
	},
}

var statefulSetPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Ready", "string", "Number of the pod with ready state"),
		ageColumn,
		wide(column("Containers", "string", containersDescription)),
		wide(column("Images", "string", imagesDescription)),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		ss := obj.(*appsv1.StatefulSet)
		names, images := containerCells(ss.Spec.Template.Spec.Containers)
		return []any{
			ss.Name,
			fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, derefInt32(ss.Spec.Replicas)),
			age(ss.CreationTimestamp, now),
			names, images,
		}, nil
	},
}

var jobPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Status", "string", "Status of the job."),
		column("Completions", "string", doc("batch/v1 JobStatus.succeeded")),
		column("Duration", "string", "Time required to complete the job."),
		ageColumn,
		wide(column("Containers", "string", containersDescription)),
		wide(column("Images", "string", imagesDescription)),
		wide(column("Selector", "string", doc("batch/v1 JobSpec.selector"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		job := obj.(*batchv1.Job)
		var completions string
		switch parallelism := derefInt32(job.Spec.Parallelism); {
		case job.Spec.Completions != nil:
			completions = fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
		case parallelism > 1:
			completions = fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, parallelism)
		default:
			completions = fmt.Sprintf("%d/1", job.Status.Succeeded)
		}
		var duration string
		switch {
		case job.Status.StartTime == nil:
		case job.Status.CompletionTime == nil:
			duration = HumanDuration(now.Sub(job.Status.StartTime.Time))
		default:
			duration = HumanDuration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time))
		}
		names, images := containerCells(job.Spec.Template.Spec.Containers)
		return []any{
			job.Name, jobStatus(job), completions, duration, age(job.CreationTimestamp, now),
			names, images, selection.FormatLabelSelector(job.Spec.Selector),
		}, nil
	},
}

// jobStatus is the first that applies of: Complete, Failed, Terminating,
// Suspended, FailureTarget, SuccessCriteriaMet, Running.
func jobStatus(job *batchv1.Job) string {
	has := func(typ string) bool {
		for _, c := range job.Status.Conditions {
			if string(c.Type) == typ {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	}
	switch {
	case has("Complete"):
		return "Complete"
	case has("Failed"):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case has("Suspended"):
		return "Suspended"
	case has("FailureTarget"):
		return "FailureTarget"
	case has("SuccessCriteriaMet"):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

var cronJobPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Schedule", "string", doc("batch/v1beta1 CronJobSpec.schedule")),
		column("Timezone", "string", doc("batch/v1beta1 CronJobSpec.timeZone")),
		column("Suspend", "boolean", doc("batch/v1beta1 CronJobSpec.suspend")),
		column("Active", "integer", doc("batch/v1beta1 CronJobStatus.active")),
		column("Last Schedule", "string", doc("batch/v1beta1 CronJobStatus.lastScheduleTime")),
		ageColumn,
		wide(column("Containers", "string", containersDescription)),
		wide(column("Images", "string", imagesDescription)),
		wide(column("Selector", "string", doc("batch/v1 JobSpec.selector"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		cj := obj.(*batchv1.CronJob)
		lastSchedule := "<none>"
		if cj.Status.LastScheduleTime != nil {
			lastSchedule = age(*cj.Status.LastScheduleTime, now)
		}
		// Upstream prints Suspend as the strings "True", "False" or
		// "<unset>", although the column type is boolean.
		suspend := "<unset>"
		if cj.Spec.Suspend != nil {
			suspend = "False"
			if *cj.Spec.Suspend {
				suspend = "True"
			}
		}
		spec := cj.Spec.JobTemplate.Spec
		names, images := containerCells(spec.Template.Spec.Containers)
		return []any{
			cj.Name, cj.Spec.Schedule, derefOr(cj.Spec.TimeZone, "<none>"), suspend,
			int64(len(cj.Status.Active)), lastSchedule, age(cj.CreationTimestamp, now),
			names, images, selection.FormatLabelSelector(spec.Selector),
		}, nil
	},
}

// Leases and priority classes.

var leasePrinter = printer{
	columns: []metav1.TableColumnDefinition{nameColumn, column("Holder", "string", doc("coordination/v1 LeaseSpec.holderIdentity")), ageColumn},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		l := obj.(*coordinationv1.Lease)
		return []any{l.Name, derefOr(l.Spec.HolderIdentity, ""), age(l.CreationTimestamp, now)}, nil
	},
}

var priorityClassPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Value", "integer", doc("scheduling/v1 PriorityClass.value")),
		column("Global-Default", "boolean", doc("scheduling/v1 PriorityClass.globalDefault")),
		ageColumn,
		column("PreemptionPolicy", "string", doc("scheduling/v1 PriorityClass.preemptionPolicy")),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		pc := obj.(*schedulingv1.PriorityClass)
		policy := ""
		if pc.PreemptionPolicy != nil {
			policy = string(*pc.PreemptionPolicy)
		}
		return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, age(pc.CreationTimestamp, now), policy}, nil
	},
}

// RuntimeClasses: upstream's printRuntimeClass (its Handler column has no description).
var runtimeClassPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Handler", "string", ""),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		rc := obj.(*nodev1.RuntimeClass)
		return []any{rc.Name, rc.Handler, age(rc.CreationTimestamp, now)}, nil
	},
}
