//go:build unix && !linux

package beneath

func openBeneath(rootfd int, rel string) (int, error) { return walk(rootfd, rel) }
