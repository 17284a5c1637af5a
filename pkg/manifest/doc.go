// Package manifest reads the objects of a simulation as `kubectl apply` sends them and the
// API server decodes them: YAML documents or a JSON stream, from files, directories and
// stdin, decoded strictly (keys given twice, unknown fields, trailing data) in parallel
// while keeping input order; Lists unrolled; phalanx's own kinds checked against their
// CRD (pkg/crdschema); the sizes the API server and etcd refuse refused. Every error is
// located by file, document and field (InputError). What the API server then does with the
// objects (defaults, admission, validation) is pkg/admission.
package manifest
