package volumemanager

import (
	"context"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/metav1"
)

// TestTokenRefreshTiming: a cached token is used until 80% of its
// lifetime has passed (minus jitter), then a new one is requested; a
// failed refresh keeps the old token while it is valid.
func TestTokenRefreshTiming(t *testing.T) {
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	now := start
	requests := 0
	var fail error
	m := &tokenManager{now: func() time.Time { return now }, jitter: func() time.Duration { return 0 },
		cache: map[string]*authenticationv1.TokenRequest{},
		request: func(_ context.Context, ns, name string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
			if fail != nil {
				return nil, fail
			}
			requests++
			out := *tr
			out.Status = authenticationv1.TokenRequestStatus{Token: "t" + string(rune('0'+requests)),
				ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second))}
			return &out, nil
		}}
	exp := int64(3600)
	req := func() *authenticationv1.TokenRequest {
		return &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp,
			BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: "web", UID: "uid-1"}}}
	}
	get := func() string {
		t.Helper()
		tr, err := m.GetServiceAccountToken(context.Background(), "default", "default", req())
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	if tok := get(); tok != "t1" || requests != 1 {
		t.Fatalf("first: %s after %d requests", tok, requests)
	}
	now = start.Add(47 * time.Minute) // 78%
	if tok := get(); tok != "t1" || requests != 1 || m.dueForRefresh("uid-1") {
		t.Fatalf("at 78%%: %s after %d requests", tok, requests)
	}
	now = start.Add(48*time.Minute + time.Second) // past 80%
	if !m.dueForRefresh("uid-1") || m.dueForRefresh("uid-2") {
		t.Errorf("dueForRefresh at 80%%: uid-1 %v, uid-2 %v", m.dueForRefresh("uid-1"), m.dueForRefresh("uid-2"))
	}
	fail = context.DeadlineExceeded
	if tok := get(); tok != "t1" {
		t.Fatalf("failed refresh of a valid token: %s", tok)
	}
	fail = nil
	if tok := get(); tok != "t2" || requests != 2 {
		t.Fatalf("past 80%%: %s after %d requests", tok, requests)
	}
	m.DeleteServiceAccountToken("uid-1")
	if len(m.cache) != 0 {
		t.Errorf("cache after the pod is gone: %v", m.cache)
	}
	// A token of a long lifetime is refreshed after 24 hours.
	long := int64(7 * 24 * 3600)
	m.cache = map[string]*authenticationv1.TokenRequest{}
	tr := req()
	tr.Spec.ExpirationSeconds = &long
	m.GetServiceAccountToken(context.Background(), "default", "default", tr)
	now = now.Add(23 * time.Hour)
	if m.dueForRefresh("uid-1") {
		t.Errorf("a week-long token due after 23h")
	}
	now = now.Add(2 * time.Hour)
	if !m.dueForRefresh("uid-1") {
		t.Errorf("a week-long token not due after 25h")
	}
}
