package signer

import (
	"crypto/x509"
	"fmt"
	"slices"
	"time"

	"kubik/ch01-apiserver/api/certificatesv1"
)

// PermissiveSigningPolicy is the policy of the built-in signers: the
// request's names are kept, its extensions dropped, the usages are the
// request's spec.usages, the certificate is no CA. NotBefore is Now -
// Backdate; NotAfter is Now + TTL - Backdate, or Now + TTL for a TTL under
// Short, and never past the signer's own NotAfter. Upstream:
// authority.PermissiveSigningPolicy.
type PermissiveSigningPolicy struct {
	TTL      time.Duration
	Usages   []certificatesv1.KeyUsage
	Backdate time.Duration
	Short    time.Duration
	Now      func() time.Time
}

func (p PermissiveSigningPolicy) apply(tmpl *x509.Certificate, signerNotAfter time.Time) error {
	usage, extUsages, err := keyUsagesFromStrings(p.Usages)
	if err != nil {
		return err
	}
	tmpl.KeyUsage = usage
	tmpl.ExtKeyUsage = extUsages

	tmpl.ExtraExtensions = nil
	tmpl.Extensions = nil
	tmpl.BasicConstraintsValid = true
	tmpl.IsCA = false

	now := time.Now()
	if p.Now != nil {
		now = p.Now()
	}
	tmpl.NotBefore = now.Add(-p.Backdate)
	if p.TTL < p.Short {
		tmpl.NotAfter = now.Add(p.TTL) // a short-lived certificate keeps its whole TTL
	} else {
		tmpl.NotAfter = now.Add(p.TTL - p.Backdate)
	}
	if !tmpl.NotAfter.Before(signerNotAfter) {
		tmpl.NotAfter = signerNotAfter
	}
	if !tmpl.NotBefore.Before(signerNotAfter) {
		return fmt.Errorf("the signer has expired: NotAfter=%v", signerNotAfter)
	}
	if !now.Before(signerNotAfter) {
		return fmt.Errorf("refusing to sign a certificate that expired in the past: NotAfter=%v", signerNotAfter)
	}
	return nil
}

var keyUsageDict = map[certificatesv1.KeyUsage]x509.KeyUsage{
	certificatesv1.UsageSigning:           x509.KeyUsageDigitalSignature,
	certificatesv1.UsageDigitalSignature:  x509.KeyUsageDigitalSignature,
	certificatesv1.UsageContentCommitment: x509.KeyUsageContentCommitment,
	certificatesv1.UsageKeyEncipherment:   x509.KeyUsageKeyEncipherment,
	certificatesv1.UsageKeyAgreement:      x509.KeyUsageKeyAgreement,
	certificatesv1.UsageDataEncipherment:  x509.KeyUsageDataEncipherment,
	certificatesv1.UsageCertSign:          x509.KeyUsageCertSign,
	certificatesv1.UsageCRLSign:           x509.KeyUsageCRLSign,
	certificatesv1.UsageEncipherOnly:      x509.KeyUsageEncipherOnly,
	certificatesv1.UsageDecipherOnly:      x509.KeyUsageDecipherOnly,
}

var extKeyUsageDict = map[certificatesv1.KeyUsage]x509.ExtKeyUsage{
	certificatesv1.UsageAny:             x509.ExtKeyUsageAny,
	certificatesv1.UsageServerAuth:      x509.ExtKeyUsageServerAuth,
	certificatesv1.UsageClientAuth:      x509.ExtKeyUsageClientAuth,
	certificatesv1.UsageCodeSigning:     x509.ExtKeyUsageCodeSigning,
	certificatesv1.UsageEmailProtection: x509.ExtKeyUsageEmailProtection,
	certificatesv1.UsageSMIME:           x509.ExtKeyUsageEmailProtection,
	certificatesv1.UsageIPsecEndSystem:  x509.ExtKeyUsageIPSECEndSystem,
	certificatesv1.UsageIPsecTunnel:     x509.ExtKeyUsageIPSECTunnel,
	certificatesv1.UsageIPsecUser:       x509.ExtKeyUsageIPSECUser,
	certificatesv1.UsageTimestamping:    x509.ExtKeyUsageTimeStamping,
	certificatesv1.UsageOCSPSigning:     x509.ExtKeyUsageOCSPSigning,
	certificatesv1.UsageMicrosoftSGC:    x509.ExtKeyUsageMicrosoftServerGatedCrypto,
	certificatesv1.UsageNetscapeSGC:     x509.ExtKeyUsageNetscapeServerGatedCrypto,
}

// keyUsagesFromStrings turns the API's usages into x509 key usages and
// (sorted, without duplicates) extended key usages.
func keyUsagesFromStrings(usages []certificatesv1.KeyUsage) (x509.KeyUsage, []x509.ExtKeyUsage, error) {
	var keyUsage x509.KeyUsage
	var extKeyUsages []x509.ExtKeyUsage
	var unrecognized []certificatesv1.KeyUsage
	for _, u := range usages {
		if v, ok := keyUsageDict[u]; ok {
			keyUsage |= v
		} else if v, ok := extKeyUsageDict[u]; ok {
			extKeyUsages = append(extKeyUsages, v)
		} else {
			unrecognized = append(unrecognized, u)
		}
	}
	if len(unrecognized) > 0 {
		return 0, nil, fmt.Errorf("unrecognized usage values: %q", unrecognized)
	}
	slices.Sort(extKeyUsages)
	return keyUsage, slices.Compact(extKeyUsages), nil
}
