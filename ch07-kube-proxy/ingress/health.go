package ingress

import (
	"fmt"
	"net/http"
)

// HealthHandler answers /healthz (the probes, port 10254 as
// ingress-nginx's): 200 "ok" once the informers have synced and the first
// table is in place, 503 before.
func HealthHandler(synced func() bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !synced() {
			http.Error(w, "informers not synced", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	})
	return mux
}
