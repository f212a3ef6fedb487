// Package vacprotection keeps a VolumeAttributesClass while a claim or a
// volume uses it. The apiserver puts the finalizer kubernetes.io/vac-protection
// on every new class (the StorageObjectInUseProtection admission plugin);
// `kubectl delete vac x` then only sets its deletionTimestamp, and this
// controller removes the finalizer once no PersistentVolumeClaim
// (spec.volumeAttributesClassName, status.currentVolumeAttributesClassName,
// status.modifyVolumeStatus.targetVolumeAttributesClassName) and no
// PersistentVolume (spec.volumeAttributesClassName) names the class, so the
// apiserver deletes it. A class without the finalizer that is not being
// deleted gets it back.
//
// As upstream, the controller only reads its informers' caches: a claim
// created at the very moment the class is deleted may come too late.
//
// Upstream: pkg/controller/volume/vacprotection (controller name
// volumeattributesclass-protection-controller).
package vacprotection

import (
	"context"
	"log/slog"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

// vacNameKeyIndex indexes claims and volumes by the classes they name.
const vacNameKeyIndex = "volumeAttributesClassName"

// Controller adds and removes the VAC protection finalizer.
type Controller struct {
	client      *rest.Client
	vacInformer *cache.Informer[storagev1.VolumeAttributesClass, *storagev1.VolumeAttributesClass]
	pvcInformer *cache.Informer[corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaim]
	pvInformer  *cache.Informer[corev1.PersistentVolume, *corev1.PersistentVolume]
	queue       *worker.Queue
	log         *slog.Logger
}

// NewVACProtectionController watches classes, claims and volumes.
func NewVACProtectionController(cc *controller.ControllerContext) (*Controller, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client:      cc.Client,
		vacInformer: controller.InformerFor[storagev1.VolumeAttributesClass](cc.Informers),
		pvcInformer: controller.InformerFor[corev1.PersistentVolumeClaim](cc.Informers),
		pvInformer:  controller.InformerFor[corev1.PersistentVolume](cc.Informers),
		queue:       workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		log:         log.With("controller", "volumeattributesclass-protection-controller"),
	}
	c.pvcInformer.AddIndexers(cache.Indexers[corev1.PersistentVolumeClaim]{vacNameKeyIndex: getPVCReferencedVACNames})
	c.pvInformer.AddIndexers(cache.Indexers[corev1.PersistentVolume]{vacNameKeyIndex: getPVReferencedVACNames})

	c.vacInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[storagev1.VolumeAttributesClass]{
		AddFunc:    c.vacAddedUpdated,
		UpdateFunc: func(_, vac *storagev1.VolumeAttributesClass) { c.vacAddedUpdated(vac) },
	})
	// A claim or volume that stops naming a class (updated or deleted) may
	// free it.
	c.pvcInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.PersistentVolumeClaim]{
		UpdateFunc: func(old, cur *corev1.PersistentVolumeClaim) {
			c.enqueueReleased(getPVCReferencedVACNames(old), getPVCReferencedVACNames(cur))
		},
		DeleteFunc: func(pvc *corev1.PersistentVolumeClaim) { c.enqueueReleased(getPVCReferencedVACNames(pvc), nil) },
	})
	c.pvInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.PersistentVolume]{
		UpdateFunc: func(old, cur *corev1.PersistentVolume) {
			c.enqueueReleased(getPVReferencedVACNames(old), getPVReferencedVACNames(cur))
		},
		DeleteFunc: func(pv *corev1.PersistentVolume) { c.enqueueReleased(getPVReferencedVACNames(pv), nil) },
	})
	return c, nil
}

// Run waits for the informers, then runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("Starting VAC protection controller")
	worker.RunWorkers(ctx, c.queue, workers, c.processNextWorkItem,
		c.pvInformer.HasSynced, c.pvcInformer.HasSynced, c.vacInformer.HasSynced)
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.processVAC), c.log, "VAC")
}

// processVAC removes the finalizer of an unused class being deleted, and
// adds it to a live class that lacks it.
func (c *Controller) processVAC(ctx context.Context, vacName string) error {
	vac, ok := c.vacInformer.GetStore().Get("", vacName)
	if !ok {
		return nil
	}
	if isDeletionCandidate(vac) {
		if !c.isBeingUsed(vacName) {
			return c.setFinalizer(ctx, vac, false)
		}
		c.log.Debug("Keeping VAC because it is being used", "VAC", vacName)
	}
	if needToAddFinalizer(vac) {
		return c.setFinalizer(ctx, vac, true)
	}
	return nil
}

// setFinalizer adds or removes the finalizer with an Update: a conflict
// retries with the cache's newer copy.
func (c *Controller) setFinalizer(ctx context.Context, vac *storagev1.VolumeAttributesClass, add bool) error {
	clone := *vac
	clone.Finalizers = slices.DeleteFunc(slices.Clone(vac.Finalizers), func(f string) bool { return f == storagev1.VACProtectionFinalizer })
	if add {
		clone.Finalizers = append(clone.Finalizers, storagev1.VACProtectionFinalizer)
	}
	if _, err := rest.Update(ctx, c.client, &clone); err != nil {
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	}
	if add {
		c.log.Info("Added protection finalizer to VAC", "VAC", vac.Name)
	} else {
		c.log.Info("Removed protection finalizer from VAC", "VAC", vac.Name)
	}
	return nil
}

// isBeingUsed: a volume or a claim in the caches names the class.
func (c *Controller) isBeingUsed(vacName string) bool {
	return len(c.pvInformer.GetStore().ByIndex(vacNameKeyIndex, vacName)) > 0 ||
		len(c.pvcInformer.GetStore().ByIndex(vacNameKeyIndex, vacName)) > 0
}

func (c *Controller) vacAddedUpdated(vac *storagev1.VolumeAttributesClass) {
	if needToAddFinalizer(vac) || isDeletionCandidate(vac) {
		c.queue.Add(vac.Name)
	}
}

// enqueueReleased queues the classes in old that are not in cur.
func (c *Controller) enqueueReleased(old, cur []string) {
	for _, name := range old {
		if !slices.Contains(cur, name) {
			c.queue.Add(name)
		}
	}
}

// isDeletionCandidate and needToAddFinalizer are upstream's protectionutil.
func isDeletionCandidate(vac *storagev1.VolumeAttributesClass) bool {
	return vac.DeletionTimestamp != nil && slices.Contains(vac.Finalizers, storagev1.VACProtectionFinalizer)
}

func needToAddFinalizer(vac *storagev1.VolumeAttributesClass) bool {
	return vac.DeletionTimestamp == nil && !slices.Contains(vac.Finalizers, storagev1.VACProtectionFinalizer)
}

// getPVCReferencedVACNames are the classes a claim names: the one it asks
// for, the one it has, and the one a modification is moving it to.
func getPVCReferencedVACNames(pvc *corev1.PersistentVolumeClaim) []string {
	var names []string
	add := func(name string) {
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if pvc.Spec.VolumeAttributesClassName != nil {
		add(*pvc.Spec.VolumeAttributesClassName)
	}
	if pvc.Status.CurrentVolumeAttributesClassName != nil {
		add(*pvc.Status.CurrentVolumeAttributesClassName)
	}
	if s := pvc.Status.ModifyVolumeStatus; s != nil {
		add(s.TargetVolumeAttributesClassName)
	}
	return names
}

// getPVReferencedVACNames is the class a volume names.
func getPVReferencedVACNames(pv *corev1.PersistentVolume) []string {
	if pv.Spec.VolumeAttributesClassName != nil && *pv.Spec.VolumeAttributesClassName != "" {
		return []string{*pv.Spec.VolumeAttributesClassName}
	}
	return nil
}
