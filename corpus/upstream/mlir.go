package upstream

// readMLIR reads one nvgpu or nvvm op as a domain value.
func readMLIR(f form) reading {
	name, _ := opName(f.text, false)
	return unread(NoDomain, "%s", name)
}
