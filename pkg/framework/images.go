package framework

// ImageState is what the cache knows of an image name across the live nodes: its size and
// how many nodes list it in status.images (kube-scheduler's ImageStateSummary, Size and
// NumNodes). The cache keeps one per name, shared by the nodes that list it, and changes it
// only as nodes come, change their images and go (between cycles), so a cycle reads it
// without copying.
//
// Size is the size given by the node that first listed the name while no other live node
// did, as kube-scheduler's cache keeps it: another node's size for the same name (a tag that
// points to another build there) does not replace it.
type ImageState struct {
	Size     int64
	NumNodes int
}
