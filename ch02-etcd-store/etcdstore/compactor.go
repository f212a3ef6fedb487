package etcdstore

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactRevKey is the key apiservers sharing one etcd use to take turns at
// compacting: upstream's name, outside /registry.
const compactRevKey = "compact_rev_key"

// RunCompactor compacts etcd's history every interval, as the apiserver does
// (upstream: k8s.io/apiserver/pkg/storage/etcd3/compact.go; flag
// --etcd-compaction-interval). Each round compacts up to the revision seen one
// interval earlier, so a watcher or a paginated list has at least one interval
// to catch up before its revision is gone. The round is a transaction on the
// version of compactRevKey: when several apiservers share the etcd, only the
// first one per interval wins and compacts. It returns when ctx ends.
func (s *Store) RunCompactor(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var version, rev int64 // compactRevKey's version we expect; the revision of the last round
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var err error
		version, rev, err = s.compactRound(ctx, version, rev)
		if err != nil && !errors.Is(err, context.Canceled) {
			s.log.Warn("compaction failed", "component", "etcdstore", "err", err)
		}
	}
}

// compactRound is one round: claim the round, then compact to rev (the
// revision the previous round saw). It returns the next version and revision.
func (s *Store) compactRound(ctx context.Context, version, rev int64) (int64, int64, error) {
	cctx, cancel := s.call(ctx)
	defer cancel()
	key := s.prefix + compactRevKey
	resp, err := s.client.Txn(cctx).
		If(clientv3.Compare(clientv3.Version(key), "=", version)).
		Then(clientv3.OpPut(key, strconv.FormatInt(rev, 10))). // bumps the key's version
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return version, rev, mapErr(cctx, "compact", key, err)
	}
	cur := resp.Header.Revision
	if !resp.Succeeded { // another apiserver took this round
		return resp.Responses[0].GetResponseRange().Kvs[0].Version, cur, nil
	}
	if rev == 0 { // the first round only records where we are
		return version + 1, cur, nil
	}
	if _, err := s.client.Compact(cctx, rev); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return version + 1, cur, mapErr(cctx, "compact", key, err)
	}
	s.log.Info("compacted etcd history", "component", "etcdstore", "revision", rev)
	return version + 1, cur, nil
}
