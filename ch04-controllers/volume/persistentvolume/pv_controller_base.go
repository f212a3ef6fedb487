// Package persistentvolume binds PersistentVolumeClaims to PersistentVolumes
// (the "persistentvolume-binder" controller of kube-controller-manager).
//
// A user asks for storage with a claim (PVC: 1Gi, ReadWriteOnce, class
// "manual"); an administrator offers volumes (PV: 5Gi of hostPath
// /data/pv1). The controller matches them, in upstream's files:
//
//   - pv_controller_base.go (this file): informers on PVs and PVCs, one
//     queue for each; every change queues the object, and all claims are
//     looked at again every 15 s (upstream's --pvclaimbinder-sync-period)
//     and whenever a volume changes, so a claim waiting for a volume gets it.
//   - pv_controller.go: syncClaim and syncVolume. An unbound claim gets the
//     smallest Available volume of its storage class whose access modes and
//     capacity fit (index.go); binding writes, in upstream's order, the PV's
//     spec.claimRef, the PV's status (Bound), the PVC's spec.volumeName and
//     the PVC's status (Bound, with the volume's capacity and access modes),
//     plus the annotations pv.kubernetes.io/bind-completed and
//     pv.kubernetes.io/bound-by-controller. A claim nothing fits stays
//     Pending with the event FailedBinding. When a bound claim is deleted,
//     its volume becomes Released and its reclaim policy applies: Retain
//     keeps it, Delete deletes the PV object.
//
// Simplified: there is no real storage behind a PV here (no volume plugins),
// so Delete removes only the API object, Recycle fails as it does upstream
// without a recycler, and there is no dynamic provisioning (no StorageClass
// API is served): a claim naming a class that no PV has gets
// ProvisioningFailed. Label selectors, volume modes and pre-bound volumes and
// claims are honoured; node affinity and WaitForFirstConsumer are not.
//
// Upstream: pkg/controller/volume/persistentvolume.
package persistentvolume

import (
	"context"
	"kubik/ch04-controllers/record"
	"log/slog"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// syncPeriod: every claim is synced again this often.
const syncPeriod = 15 * time.Second

// eventRecorder is what the controller needs of controller.Recorder.
type eventRecorder interface {
	Eventf(obj corev1.ObjectReference, eventType, reason, format string, args ...any)
}

// PersistentVolumeController binds claims and volumes.
type PersistentVolumeController struct {
	client      *rest.Client
	volumes     *cache.Informer[corev1.PersistentVolume, *corev1.PersistentVolume]
	claims      *cache.Informer[corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaim]
	volumeQueue *workqueue.RateLimitingQueue[string]
	claimQueue  *workqueue.RateLimitingQueue[string]
	recorder    eventRecorder
	runRecorder func(context.Context)
	log         *slog.Logger
	now         func() time.Time
}

// NewController registers the controller's handlers on the shared PV and
// PVC informers. Upstream: persistentvolume.NewController.
func NewController(cc *controller.ControllerContext) (*PersistentVolumeController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", "persistentvolume-controller")
	rec := record.NewRecorder(cc.Client, "persistentvolume-controller", log)
	ctrl := &PersistentVolumeController{
		client:      cc.Client,
		volumes:     controller.InformerFor[corev1.PersistentVolume](cc.Informers),
		claims:      controller.InformerFor[corev1.PersistentVolumeClaim](cc.Informers),
		volumeQueue: workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		claimQueue:  workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		recorder:    rec,
		runRecorder: rec.Run,
		log:         log,
		now:         time.Now,
	}
	ctrl.volumes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.PersistentVolume]{
		AddFunc:    func(pv *corev1.PersistentVolume) { ctrl.volumeChanged(pv) },
		UpdateFunc: func(_, pv *corev1.PersistentVolume) { ctrl.volumeChanged(pv) },
		DeleteFunc: func(pv *corev1.PersistentVolume) { ctrl.volumeChanged(pv) },
	})
	ctrl.claims.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.PersistentVolumeClaim]{
		AddFunc:    func(pvc *corev1.PersistentVolumeClaim) { ctrl.claimQueue.Add(cache.MetaNamespaceKeyFunc(pvc)) },
		UpdateFunc: func(_, pvc *corev1.PersistentVolumeClaim) { ctrl.claimQueue.Add(cache.MetaNamespaceKeyFunc(pvc)) },
		DeleteFunc: ctrl.claimDeleted,
	})
	return ctrl, nil
}

// volumeChanged queues the volume, its claim, and the claims waiting for a
// volume (one may fit now).
func (ctrl *PersistentVolumeController) volumeChanged(pv *corev1.PersistentVolume) {
	ctrl.volumeQueue.Add(pv.Name)
	if ref := pv.Spec.ClaimRef; ref != nil {
		ctrl.claimQueue.Add(ref.Namespace + "/" + ref.Name)
	}
	for _, pvc := range ctrl.claims.GetStore().List() {
		if pvc.Spec.VolumeName == "" {
			ctrl.claimQueue.Add(cache.MetaNamespaceKeyFunc(pvc))
		}
	}
}

// claimDeleted queues the volume the claim was bound to: it is Released now.
func (ctrl *PersistentVolumeController) claimDeleted(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Spec.VolumeName != "" {
		ctrl.volumeQueue.Add(pvc.Spec.VolumeName)
	}
}

// Run waits for the informers, then runs workers for each queue until ctx
// ends. Upstream runs one worker per queue; workers are split between them.
func (ctrl *PersistentVolumeController) Run(ctx context.Context, workers int) {
	defer ctrl.volumeQueue.ShutDown()
	defer ctrl.claimQueue.ShutDown()
	ctrl.log.Info("starting")
	if ctrl.runRecorder != nil {
		go ctrl.runRecorder(ctx)
	}
	if !cache.WaitForCacheSync(ctx, ctrl.volumes.HasSynced, ctrl.claims.HasSynced) {
		return
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() { ctrl.worker(ctx, ctrl.volumeQueue, ctrl.syncVolumeFromKey) })
		wg.Go(func() { ctrl.worker(ctx, ctrl.claimQueue, ctrl.syncClaimFromKey) })
	}
	wg.Go(func() { ctrl.resync(ctx) })
	<-ctx.Done()
	ctrl.volumeQueue.ShutDown()
	ctrl.claimQueue.ShutDown()
	wg.Wait()
}

// resync queues every claim and volume every syncPeriod.
func (ctrl *PersistentVolumeController) resync(ctx context.Context) {
	t := time.NewTicker(syncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, pvc := range ctrl.claims.GetStore().List() {
				ctrl.claimQueue.Add(cache.MetaNamespaceKeyFunc(pvc))
			}
			for _, pv := range ctrl.volumes.GetStore().List() {
				ctrl.volumeQueue.Add(pv.Name)
			}
		}
	}
}

func (ctrl *PersistentVolumeController) worker(ctx context.Context, q *workqueue.RateLimitingQueue[string], sync func(context.Context, string) error) {
	for {
		key, quit := q.Get()
		if quit {
			return
		}
		if err := sync(ctx, key); err != nil {
			if ctx.Err() == nil {
				ctrl.log.Info("sync failed; retrying", "key", key, "err", err)
			}
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

func (ctrl *PersistentVolumeController) syncClaimFromKey(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	pvc, ok := ctrl.claims.GetStore().Get(ns, name)
	if !ok {
		return nil // deleted: its volume was queued by claimDeleted
	}
	return ctrl.syncClaim(ctx, pvc)
}

func (ctrl *PersistentVolumeController) syncVolumeFromKey(ctx context.Context, key string) error {
	pv, ok := ctrl.volumes.GetStore().Get("", key)
	if !ok {
		return nil
	}
	return ctrl.syncVolume(ctx, pv)
}
