// Package ephemeral is the ephemeral-volume controller of
// kube-controller-manager: a pod volume of type `ephemeral` (a generic
// ephemeral volume) is a PersistentVolumeClaim made for the pod from the
// volume's volumeClaimTemplate, named <pod>-<volume> and owned by the pod
// (controller: true), so the garbage collector deletes it with the pod.
// The scheduler and the kubelet wait for that claim like for any other.
//
// A claim of that name that the pod does not own is never used: the pod
// gets a Warning event FailedBinding ("... was not created for pod ...
// (pod is not owner)") and stays waiting. A deleted claim is made again
// while its pod lives.
//
// Upstream: pkg/controller/volume/ephemeral (controller.go) and
// k8s.io/component-helpers/storage/ephemeral (VolumeClaimName,
// VolumeIsForPod).
package ephemeral

import (
	"context"
	"fmt"
	"log/slog"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
)

// EventSource is the component of the controller's events.
const EventSource = "ephemeral_volume"

// FailedBinding is the reason of the event about a claim it cannot use.
const FailedBinding = "FailedBinding"

// Controller is upstream's ephemeralController.
type Controller struct {
	client   *rest.Client
	pods     *cache.Informer[corev1.Pod, *corev1.Pod]
	pvcs     *cache.Informer[corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaim]
	recorder *record.Recorder
	queue    *workqueue.RateLimitingQueue[string]
	log      *slog.Logger
}

// NewController asks for the Pod and PersistentVolumeClaim informers.
func NewController(cc *controller.ControllerContext) (*Controller, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", "ephemeral-volume-controller")
	ec := &Controller{client: cc.Client, log: log,
		pods:     controller.InformerFor[corev1.Pod](cc.Informers),
		pvcs:     controller.InformerFor[corev1.PersistentVolumeClaim](cc.Informers),
		recorder: record.NewRecorder(cc.Client, EventSource, log),
		queue:    workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]())}
	ec.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    ec.enqueuePod,
		UpdateFunc: func(_, p *corev1.Pod) { ec.enqueuePod(p) },
	})
	ec.pvcs.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.PersistentVolumeClaim]{
		DeleteFunc: ec.onPVCDelete,
	})
	return ec, nil
}

// VolumeClaimName is the name of the claim of a pod's ephemeral volume.
func VolumeClaimName(pod *corev1.Pod, volume *corev1.Volume) string {
	return pod.Name + "-" + volume.Name
}

// VolumeIsForPod checks that the claim was made for the pod: same
// namespace, and the pod is its controller.
func VolumeIsForPod(pod *corev1.Pod, pvc *corev1.PersistentVolumeClaim) error {
	if ref := metav1.GetControllerOf(&pvc.ObjectMeta); pvc.Namespace != pod.Namespace || ref == nil || ref.UID != pod.UID {
		return fmt.Errorf("PVC %s/%s was not created for pod %s/%s (pod is not owner)", pvc.Namespace, pvc.Name, pod.Namespace, pod.Name)
	}
	return nil
}

// enqueuePod queues a live pod with at least one ephemeral volume.
func (ec *Controller) enqueuePod(pod *corev1.Pod) {
	if pod.DeletionTimestamp != nil {
		return
	}
	for _, vol := range pod.Spec.Volumes {
		if vol.Ephemeral != nil {
			ec.queue.Add(pod.Namespace + "/" + pod.Name)
			return
		}
	}
}

// onPVCDelete queues the pod whose ephemeral claim this was, so that the
// claim is made again.
func (ec *Controller) onPVCDelete(pvc *corev1.PersistentVolumeClaim) {
	for _, pod := range ec.pods.GetStore().List() {
		if pod.Namespace != pvc.Namespace {
			continue
		}
		for i := range pod.Spec.Volumes {
			if v := &pod.Spec.Volumes[i]; v.Ephemeral != nil && VolumeClaimName(pod, v) == pvc.Name {
				ec.enqueuePod(pod)
			}
		}
	}
}

// Run waits for the caches and runs workers until ctx ends.
func (ec *Controller) Run(ctx context.Context, workers int) {
	go ec.recorder.Run(ctx)
	worker.RunWorkers(ctx, ec.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, ec.queue, worker.SyncErr(ec.syncHandler), ec.log, "pod")
	}, ec.pods.HasSynced, ec.pvcs.HasSynced)
}

// syncHandler makes the missing claims of one pod.
func (ec *Controller) syncHandler(ctx context.Context, key string) error {
	namespace, name := cache.SplitMetaNamespaceKey(key)
	pod, ok := ec.pods.GetStore().Get(namespace, name)
	if !ok || pod.DeletionTimestamp != nil {
		return nil // gone or going: nothing to do
	}
	for _, vol := range pod.Spec.Volumes {
		if err := ec.handleVolume(ctx, pod, vol); err != nil {
			ec.recorder.Eventf(record.RefFor(&pod.ObjectMeta, "v1", "Pod"), corev1.EventTypeWarning, FailedBinding,
				"ephemeral volume %s: %v", vol.Name, err)
			return fmt.Errorf("pod %s, ephemeral volume %s: %v", key, vol.Name, err)
		}
	}
	return nil
}

// handleVolume makes the claim of one ephemeral volume unless it exists;
// an existing claim must be the pod's.
func (ec *Controller) handleVolume(ctx context.Context, pod *corev1.Pod, vol corev1.Volume) error {
	if vol.Ephemeral == nil {
		return nil
	}
	pvcName := VolumeClaimName(pod, &vol)
	if pvc, ok := ec.pvcs.GetStore().Get(pod.Namespace, pvcName); ok {
		return VolumeIsForPod(pod, pvc)
	}
	tmpl := vol.Ephemeral.VolumeClaimTemplate
	if tmpl == nil {
		return nil // refused by validation
	}
	isTrue := true
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: pvcName, Namespace: pod.Namespace,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
				Controller: &isTrue, BlockOwnerDeletion: &isTrue}},
			Annotations: tmpl.Annotations, Labels: tmpl.Labels},
		Spec: tmpl.Spec,
	}
	if _, err := rest.Create(ctx, ec.client, pvc); err != nil {
		return fmt.Errorf("create PVC %s: %v", pvcName, err)
	}
	return nil
}
