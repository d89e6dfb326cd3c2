package matdesc

// The canonical layouts a wgmma descriptor describes (PTX ISA, "Shared
// Memory Matrix Layout"; CUTLASS's GMMA layouts say the same), before the
// swizzle permutes 16-byte chunks inside each span. One reading serves the
// gpu oracle, which predicts what the hardware reads, and the check of the
// descriptors MLIR's lowering computes.

// SwizzleSpan is the bytes one row of a wgmma descriptor's swizzle mode
// holds: 128, 64 or 32, and 16 without a swizzle (core matrices of 8x16
// bytes).
func (v Value) SwizzleSpan() int {
	switch v.Swizzle & 3 {
	case 1:
		return 128
	case 2:
		return 64
	case 3:
		return 32
	}
	return 16
}

// KMajorOffset is the shared address (unswizzled) of byte kb of row r
// (an M or N index) of a K-major operand: rows of SwizzleSpan bytes in
// groups of eight, SBO apart; without a swizzle, K runs in 16-byte core
// matrices LBO apart.
func (v Value) KMajorOffset(r, kb int) uint64 {
	start, lbo, sbo := uint64(v.StartAddr&0x3FFF0), uint64(v.LBO&0x3FFF0), uint64(v.SBO&0x3FFF0)
	span := v.SwizzleSpan()
	at := start + uint64(r%8*span) + uint64(r/8)*sbo
	if span == 16 {
		return at + uint64(kb%16) + uint64(kb/16)*lbo
	}
	return at + uint64(kb)
}

// MNMajorOffset is the shared address (unswizzled) of byte b along M or N
// of K row k of an MN-major operand: SwizzleSpan bytes along M or N, then
// the next span LBO away; K rows SwizzleSpan apart in groups of eight,
// SBO apart.
func (v Value) MNMajorOffset(k, b int) uint64 {
	start, lbo, sbo := uint64(v.StartAddr&0x3FFF0), uint64(v.LBO&0x3FFF0), uint64(v.SBO&0x3FFF0)
	span := v.SwizzleSpan()
	return start + uint64(b/span)*lbo + uint64(b%span) + uint64(k%8*span) + uint64(k/8)*sbo
}
