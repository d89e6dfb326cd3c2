package domain

// typeBits is the width of each PTX element type a domain's enumeration
// spells: the one statement of it (mma and wgmma each kept a switch).
var typeBits = map[string]int{
	"b1": 1, "s4": 4, "u4": 4,
	"e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
	"f16": 16, "bf16": 16,
	"f32": 32, "tf32": 32, "s32": 32,
	"f64": 64,
}

// TypeBits is the width in bits of the PTX element type spelled name
// ("bf16", "e4m3"), 0 for a name that is none.
func TypeBits(name string) int { return typeBits[name] }
