package cache

import "k8s.io/apimachinery/pkg/labels"

func labelsParse(s string) (labels.Selector, error) { return labels.Parse(s) }
func labelSet(m map[string]string) labels.Set       { return labels.Set(m) }
