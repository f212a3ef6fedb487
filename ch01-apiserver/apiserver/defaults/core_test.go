package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// Resource lists are rounded up to milli precision wherever they occur.
func TestCoreResourceListDefaults(t *testing.T) {
	runDefaultsCases(t, []defaultsCase{{
		name: "LimitRange",
		obj:  func() metav1.Object { return &corev1.LimitRange{} },
		in: `{"metadata":{"name":"lr"},"spec":{"limits":[
			{"type":"Container","max":{"cpu":"0.0001"},"min":{"memory":"1.5"},"maxLimitRequestRatio":{"cpu":"1.00001"}},
			{"type":"Pod","max":{"cpu":"1.0001"}}]}}`,
		want: `{"metadata":{"name":"lr"},"spec":{"limits":[
			{"type":"Container","max":{"cpu":"1m"},"min":{"memory":"1500m"},"default":{"cpu":"1m"},
			 "defaultRequest":{"cpu":"1m","memory":"1500m"},"maxLimitRequestRatio":{"cpu":"1001m"}},
			{"type":"Pod","max":{"cpu":"1001m"}}]}}`,
	}, {
		name: "ResourceQuota",
		obj:  func() metav1.Object { return &corev1.ResourceQuota{} },
		in:   `{"metadata":{"name":"q"},"spec":{"hard":{"cpu":"0.0005"}},"status":{"hard":{"cpu":"0.0005"},"used":{"cpu":"0.00011","memory":"1.0001"}}}`,
		want: `{"metadata":{"name":"q"},"spec":{"hard":{"cpu":"1m"}},"status":{"hard":{"cpu":"1m"},"used":{"cpu":"1m","memory":"1001m"}}}`,
	}, {
		name: "PersistentVolumeClaim status",
		obj:  func() metav1.Object { return &corev1.PersistentVolumeClaim{} },
		in:   `{"metadata":{"name":"c"},"spec":{"resources":{"requests":{"storage":"1Gi"}}},"status":{"capacity":{"storage":"0.0001"},"allocatedResources":{"storage":"1.0001"}}}`,
		want: `{"metadata":{"name":"c"},"spec":{"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},
			"status":{"phase":"Pending","capacity":{"storage":"1m"},"allocatedResources":{"storage":"1001m"}}}`,
	}, {
		name: "Pod status",
		obj:  func() metav1.Object { return &corev1.Pod{} },
		in: `{"metadata":{"name":"ps"},"spec":{"containers":[{"name":"a","image":"nginx:1.27"}]},"status":{
			"allocatedResources":{"cpu":"0.0001"},"resources":{"limits":{"cpu":"1.0001"},"requests":{"memory":"1.5"}},
			"containerStatuses":[{"name":"a","image":"","imageID":"","ready":false,"restartCount":0,"allocatedResources":{"cpu":"0.0001"},"resources":{"requests":{"cpu":"2.0001"}}}],
			"initContainerStatuses":[{"name":"i","image":"","imageID":"","ready":false,"restartCount":0,"allocatedResources":{"memory":"0.5"}}],
			"ephemeralContainerStatuses":[{"name":"e","image":"","imageID":"","ready":false,"restartCount":0,"resources":{"limits":{"cpu":"0.0001"}}}]}}`,
		want: `{"metadata":{"name":"ps"},"spec":{"containers":[{"name":"a","image":"nginx:1.27","resources":{},
			  "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
			"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},
			"schedulerName":"default-scheduler","enableServiceLinks":true},"status":{
			"initContainerStatuses":[{"name":"i","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"","imageID":"","allocatedResources":{"memory":"500m"}}],
			"containerStatuses":[{"name":"a","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"","imageID":"","allocatedResources":{"cpu":"1m"},"resources":{"requests":{"cpu":"2001m"}}}],
			"ephemeralContainerStatuses":[{"name":"e","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"","imageID":"","resources":{"limits":{"cpu":"1m"}}}],
			"allocatedResources":{"cpu":"1m"},"resources":{"limits":{"cpu":"1001m"},"requests":{"memory":"1500m"}}}}`,
	}})
}

func TestConfigMapDefaults(t *testing.T) {
	runDefaultsCases(t, []defaultsCase{{
		name: "no data",
		obj:  func() metav1.Object { return &corev1.ConfigMap{} },
		in:   `{"metadata":{"name":"empty"}}`,
		want: `{"metadata":{"name":"empty"}}`,
	}, {
		name: "data kept",
		obj:  func() metav1.Object { return &corev1.ConfigMap{} },
		in:   `{"metadata":{"name":"c"},"data":{"k":"v"}}`,
		want: `{"metadata":{"name":"c"},"data":{"k":"v"}}`,
	}})
	// JSON omits an empty map; the object itself must carry one.
	cm := &corev1.ConfigMap{}
	Default(cm)
	if cm.Data == nil {
		t.Error("configmap data is nil after defaulting")
	}
}

func TestReplicationControllerDefaults(t *testing.T) {
	runDefaultsCases(t, []defaultsCase{{
		name: "selector, labels and replicas from the template",
		obj:  func() metav1.Object { return &corev1.ReplicationController{} },
		in:   `{"metadata":{"name":"rc"},"spec":{"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"a","image":"nginx"}]}}}}`,
		want: `{"metadata":{"name":"rc","labels":{"app":"x"}},"spec":{"replicas":1,"selector":{"app":"x"},
			"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"a","image":"nginx","resources":{},
			  "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],
			"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},
			"schedulerName":"default-scheduler"}}},"status":{"replicas":0}}`,
	}, {
		name: "no template",
		obj:  func() metav1.Object { return &corev1.ReplicationController{} },
		in:   `{"metadata":{"name":"rc"},"spec":{"selector":{"app":"x"}}}`,
		want: `{"metadata":{"name":"rc"},"spec":{"replicas":1,"selector":{"app":"x"}},"status":{"replicas":0}}`,
	}})
}
