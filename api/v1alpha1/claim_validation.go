package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const msgOneClaimSource = "exactly one of resourceClaimName or resourceClaimTemplateName must be set"

// validateResourceClaims checks spec.resourceClaims as the CRD does: at most
// MaxResourceClaims entries, unique DNS-label names, exactly one source each.
func validateResourceClaims(claims []PodGroupResourceClaim, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(claims) > MaxResourceClaims {
		errs = append(errs, field.TooMany(path, len(claims), MaxResourceClaims))
	}
	seen := make(map[string]bool, len(claims))
	for i, c := range claims {
		p := path.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case seen[c.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(c.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
			}
		}
		seen[c.Name] = true
		switch {
		case (c.ResourceClaimName == nil) == (c.ResourceClaimTemplateName == nil):
			errs = append(errs, field.Invalid(p, c.Name, msgOneClaimSource))
		case c.ResourceClaimName != nil:
			errs = append(errs, validateObjectName(*c.ResourceClaimName, p.Child("resourceClaimName"))...)
		default:
			errs = append(errs, validateObjectName(*c.ResourceClaimTemplateName, p.Child("resourceClaimTemplateName"))...)
		}
	}
	return errs
}

// validateDeviceTopology checks that matchAttribute, when given, is a fully qualified
// device attribute name: a DNS subdomain, a slash and a C identifier-like name.
func validateDeviceTopology(d *DeviceTopologyConstraint, path *field.Path) field.ErrorList {
	if d == nil || d.MatchAttribute == "" {
		return nil
	}
	p := path.Child("matchAttribute")
	domain, name, ok := cutLast(d.MatchAttribute, '/')
	if !ok || domain == "" || name == "" {
		return field.ErrorList{field.Invalid(p, d.MatchAttribute, "must be a fully qualified device attribute: <domain>/<name>")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(domain) {
		errs = append(errs, field.Invalid(p, d.MatchAttribute, "domain: "+msg))
	}
	if len(name) > 64 || !isAttributeName(name) {
		errs = append(errs, field.Invalid(p, d.MatchAttribute, "name: must be at most 64 letters, digits, '-' or '_', starting and ending with a letter or digit"))
	}
	return errs
}

func cutLast(s string, sep byte) (string, string, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func isAttributeName(s string) bool {
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !alnum(c) && ((c != '-' && c != '_') || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return s != ""
}
