package defaults

import "kubik/ch01-apiserver/api/apiregistrationv1"

// setDefaultsAPIService: an extension apiserver's Service is called on port
// 443 (upstream's SetDefaults_ServiceReference of apiregistration/v1).
func setDefaultsAPIService(a *apiregistrationv1.APIService) {
	if ref := a.Spec.Service; ref != nil && ref.Port == nil {
		p := int32(443)
		ref.Port = &p
	}
}
