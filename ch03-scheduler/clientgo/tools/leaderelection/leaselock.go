package leaderelection

import (
	"context"
	"encoding/json"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// LeaderElectionRecord is what the lock holds, whatever the lock's kind.
// Upstream: resourcelock.LeaderElectionRecord.
type LeaderElectionRecord struct {
	HolderIdentity       string
	LeaseDurationSeconds int
	AcquireTime          time.Time
	RenewTime            time.Time
	LeaderTransitions    int
}

// LeaseLock keeps the record in a coordination.k8s.io/v1 Lease. Its
// resourceVersion makes every write a compare-and-swap: of two candidates
// writing the same Lease, one gets a 409 Conflict and loses.
// Upstream: resourcelock.LeaseLock.
type LeaseLock struct {
	Namespace string // kube-system
	Name      string // kube-scheduler
	Client    *rest.Client
	// Identity is this candidate: hostname_<random>, unique per process.
	Identity string

	lease *coordinationv1.Lease // as last read or written
}

// Get reads the record and its raw form (to notice any change).
func (l *LeaseLock) Get(ctx context.Context) (*LeaderElectionRecord, []byte, error) {
	lease, err := rest.Get[coordinationv1.Lease](ctx, l.Client, l.Namespace, l.Name)
	if err != nil {
		return nil, nil, err
	}
	l.lease = lease
	raw, err := json.Marshal(lease.Spec)
	if err != nil {
		return nil, nil, err
	}
	return leaseSpecToRecord(&lease.Spec), raw, nil
}

// Create makes the Lease with the record.
func (l *LeaseLock) Create(ctx context.Context, ler LeaderElectionRecord) error {
	lease, err := rest.Create(ctx, l.Client, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: l.Namespace, Name: l.Name},
		Spec:       recordToLeaseSpec(&ler),
	})
	if err != nil {
		return err
	}
	l.lease = lease
	return nil
}

// Update writes the record over the Lease last read; a 409 Conflict if
// someone else wrote it since.
func (l *LeaseLock) Update(ctx context.Context, ler LeaderElectionRecord) error {
	if l.lease == nil {
		return errNotRead
	}
	lease := *l.lease
	lease.Spec = recordToLeaseSpec(&ler)
	updated, err := rest.Update(ctx, l.Client, &lease)
	if err != nil {
		return err
	}
	l.lease = updated
	return nil
}

// Describe names the lock in logs.
func (l *LeaseLock) Describe() string { return l.Namespace + "/" + l.Name }

func leaseSpecToRecord(s *coordinationv1.LeaseSpec) *LeaderElectionRecord {
	var r LeaderElectionRecord
	if s.HolderIdentity != nil {
		r.HolderIdentity = *s.HolderIdentity
	}
	if s.LeaseDurationSeconds != nil {
		r.LeaseDurationSeconds = int(*s.LeaseDurationSeconds)
	}
	if s.LeaseTransitions != nil {
		r.LeaderTransitions = int(*s.LeaseTransitions)
	}
	if s.AcquireTime != nil {
		r.AcquireTime = s.AcquireTime.Time
	}
	if s.RenewTime != nil {
		r.RenewTime = s.RenewTime.Time
	}
	return &r
}

func recordToLeaseSpec(r *LeaderElectionRecord) coordinationv1.LeaseSpec {
	holder := r.HolderIdentity
	duration := int32(r.LeaseDurationSeconds)
	transitions := int32(r.LeaderTransitions)
	return coordinationv1.LeaseSpec{
		HolderIdentity:       &holder,
		LeaseDurationSeconds: &duration,
		AcquireTime:          &metav1.MicroTime{Time: r.AcquireTime.UTC().Truncate(time.Microsecond)},
		RenewTime:            &metav1.MicroTime{Time: r.RenewTime.UTC().Truncate(time.Microsecond)},
		LeaseTransitions:     &transitions,
	}
}
