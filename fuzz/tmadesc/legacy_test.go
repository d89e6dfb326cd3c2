package tmadesc

// The hand-written codec and JSON form of tmadesc before package desc
// described its fields, kept as the reference the described ones must match
// byte for byte (stored case IDs hash these bytes) and as the baseline of
// BenchmarkDecode.

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// normalize zeroes what the value does not carry, so the encoding is
// canonical.
func legacyNormalize(v *Value) {
	for i := v.Dims(); i < MaxDims; i++ {
		v.GlobalDim[i], v.BoxDim[i], v.ElementStrides[i] = 0, 0, 0
	}
	for i := v.StrideCount(); i < MaxDims-1; i++ {
		v.GlobalStrides[i] = 0
	}
	for i := v.CornerCount(); i < 3; i++ {
		v.PixelBoxLower[i], v.PixelBoxUpper[i] = 0, 0
	}
	if v.Encoding != Tiled {
		v.BoxDim = [MaxDims]uint32{}
	} else {
		v.ChannelsPerPixel, v.PixelsPerColumn = 0, 0
	}
	if v.Encoding != Im2colWide {
		v.WideMode = WideW
	}
}

// Encode implements domain.Value: the enums, the addresses, the arrays in
// full (zeros past their counts), the im2col fields, the target.
func legacyEncode(v Value) []byte {
	var w domain.Writer
	for _, b := range []uint8{uint8(v.Encoding), uint8(v.DType), v.Rank, uint8(v.Interleave),
		uint8(v.Swizzle), uint8(v.L2Promotion), uint8(v.OOBFill), uint8(v.WideMode)} {
		w.U8(b)
	}
	w.U64(v.TensorMap)
	w.U64(v.GlobalAddress)
	w.U32(v.SMemAddress)
	for _, d := range v.GlobalDim {
		w.U64(d)
	}
	for _, s := range v.GlobalStrides {
		w.U64(s)
	}
	for i := range MaxDims {
		w.U32(v.BoxDim[i])
		w.U32(v.ElementStrides[i])
	}
	for i := range 3 {
		w.U32(uint32(v.PixelBoxLower[i]))
		w.U32(uint32(v.PixelBoxUpper[i]))
	}
	w.U32(v.ChannelsPerPixel)
	w.U32(v.PixelsPerColumn)
	w.Bytes = v.Tgt.Encode(w.Bytes)
	return w.Bytes
}

// Decode maps fuzz bytes to a value; every input decodes.
func legacyDecode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{
		Encoding:    Encoding(r.Index(len(Encodings))),
		DType:       DType(r.Index(len(DTypes))),
		Rank:        uint8(r.Index(9)),
		Interleave:  Interleave(r.Index(len(Interleaves))),
		Swizzle:     Swizzle(r.Index(len(Swizzles))),
		L2Promotion: L2Promotion(r.Index(len(L2Promotions))),
		OOBFill:     OOBFill(r.Index(len(OOBFills))),
		WideMode:    WideMode(r.Index(len(WideModes))),
	}
	v.TensorMap, v.GlobalAddress, v.SMemAddress = r.U64(), r.U64(), r.U32()
	for i := range v.GlobalDim {
		v.GlobalDim[i] = r.U64()
	}
	for i := range v.GlobalStrides {
		v.GlobalStrides[i] = r.U64()
	}
	for i := range MaxDims {
		v.BoxDim[i], v.ElementStrides[i] = r.U32(), r.U32()
	}
	for i := range 3 {
		v.PixelBoxLower[i], v.PixelBoxUpper[i] = int32(r.U32()), int32(r.U32())
	}
	v.ChannelsPerPixel, v.PixelsPerColumn = r.U32(), r.U32()
	v.Tgt = target.Decode(r.U8(), r.U8())
	legacyNormalize(&v)
	return v, nil
}

// legacyForm is the JSON form. Arrays are sized by the rank: global_dim,
// box_dim and element_strides carry min(rank, 5) entries, global_strides one
// fewer, the pixel-box corners rank-2 (im2col) or one (im2col_wide). Fields
// the encoding does not take are omitted on output and refused on input.
type legacyForm struct {
	Encoding         *string  `json:"encode"`
	DType            *string  `json:"dtype"`
	Rank             *int     `json:"rank"`
	TensorMap        *uint64  `json:"tensor_map"`
	GlobalAddress    *uint64  `json:"global_address"`
	GlobalDim        []uint64 `json:"global_dim"`
	GlobalStrides    []uint64 `json:"global_strides"`
	BoxDim           []uint32 `json:"box_dim,omitempty"`
	ElementStrides   []uint32 `json:"element_strides"`
	Interleave       *string  `json:"interleave"`
	Swizzle          *string  `json:"swizzle"`
	L2Promotion      *string  `json:"l2_promotion"`
	OOBFill          *string  `json:"oob_fill"`
	PixelBoxLower    []int32  `json:"pixel_box_lower,omitempty"`
	PixelBoxUpper    []int32  `json:"pixel_box_upper,omitempty"`
	ChannelsPerPixel *uint32  `json:"channels_per_pixel,omitempty"`
	PixelsPerColumn  *uint32  `json:"pixels_per_column,omitempty"`
	WideMode         *string  `json:"wide_mode,omitempty"`
	SMemAddress      *uint32  `json:"smem_address"`
	target.JSON
}

// MarshalJSON writes every field the encoding takes, arrays sized by rank.
func legacyMarshalJSON(v Value) ([]byte, error) {
	rank := int(v.Rank)
	f := legacyForm{
		Encoding: domain.Ptr(v.Encoding.String()), DType: domain.Ptr(v.DType.String()), Rank: &rank,
		TensorMap: &v.TensorMap, GlobalAddress: &v.GlobalAddress,
		GlobalDim:      append([]uint64{}, v.GlobalDim[:v.Dims()]...),
		GlobalStrides:  append([]uint64{}, v.GlobalStrides[:v.StrideCount()]...),
		ElementStrides: append([]uint32{}, v.ElementStrides[:v.Dims()]...),
		Interleave:     domain.Ptr(v.Interleave.String()), Swizzle: domain.Ptr(v.Swizzle.String()),
		L2Promotion: domain.Ptr(v.L2Promotion.String()), OOBFill: domain.Ptr(v.OOBFill.String()),
		SMemAddress: &v.SMemAddress, JSON: v.Tgt.ToJSON(),
	}
	if v.Encoding == Tiled {
		f.BoxDim = append([]uint32{}, v.BoxDim[:v.Dims()]...)
	} else {
		f.PixelBoxLower = append([]int32{}, v.PixelBoxLower[:v.CornerCount()]...)
		f.PixelBoxUpper = append([]int32{}, v.PixelBoxUpper[:v.CornerCount()]...)
		f.ChannelsPerPixel, f.PixelsPerColumn = &v.ChannelsPerPixel, &v.PixelsPerColumn
	}
	if v.Encoding == Im2colWide {
		f.WideMode = domain.Ptr(v.WideMode.String())
	}
	return json.Marshal(f)
}

// ParseJSON parses the strict JSON form. Defaults: encode tiled, dtype
// float16, rank the length of global_dim (else 2 for tiled, 4 for the im2col
// kinds), tensor_map 0x1000, global_address 0x100000, smem_address 0x400,
// global_dim 256 per dimension, global_strides dense (the row bytes rounded
// up to 16, or 32 under interleave 32B and for the ALIGN16B types, times the
// outer dimensions), box_dim 64 per dimension, element_strides 1, interleave
// none, swizzle none (128B for im2col_wide, which has no none), l2_promotion
// none, oob_fill none, pixel-box corners 0, channels_per_pixel 64,
// pixels_per_column 128, wide_mode W, target sm_90, ptx the target's first
// PTX ISA version.
func legacyParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseForm("tmadesc", data, legacyForm.value)
}

func (f legacyForm) value() (Value, error) {
	v := Value{Encoding: Tiled, DType: Float16, TensorMap: DefaultTensorMap,
		GlobalAddress: DefaultGlobalAddress, SMemAddress: DefaultSMemAddress}
	if err := f.enums(&v); err != nil {
		return Value{}, err
	}
	if err := f.rank(&v); err != nil {
		return Value{}, err
	}
	if err := f.applicable(v.Encoding); err != nil {
		return Value{}, err
	}
	t, err := f.JSON.FromJSON(DefaultArch)
	if err != nil {
		return Value{}, err
	}
	v.Tgt = t
	domain.Opt(f.TensorMap, &v.TensorMap)
	domain.Opt(f.GlobalAddress, &v.GlobalAddress)
	domain.Opt(f.SMemAddress, &v.SMemAddress)
	if err := f.arrays(&v); err != nil {
		return Value{}, err
	}
	f.im2col(&v)
	return v, nil
}

// enums parses the enum fields, applying their defaults.
func (f legacyForm) enums(v *Value) error {
	for _, e := range []struct {
		field string
		given *string
		enum  domain.Enum
		set   func(i uint8)
	}{
		{"encode", f.Encoding, Encodings, func(i uint8) { v.Encoding = Encoding(i) }},
		{"dtype", f.DType, DTypes, func(i uint8) { v.DType = DType(i) }},
		{"interleave", f.Interleave, Interleaves, func(i uint8) { v.Interleave = Interleave(i) }},
		{"swizzle", f.Swizzle, Swizzles, func(i uint8) { v.Swizzle = Swizzle(i) }},
		{"l2_promotion", f.L2Promotion, L2Promotions, func(i uint8) { v.L2Promotion = L2Promotion(i) }},
		{"oob_fill", f.OOBFill, OOBFills, func(i uint8) { v.OOBFill = OOBFill(i) }},
		{"wide_mode", f.WideMode, WideModes, func(i uint8) { v.WideMode = WideMode(i) }},
	} {
		if e.given == nil {
			continue
		}
		i, err := e.enum.Parse(e.field, *e.given)
		if err != nil {
			return err
		}
		e.set(uint8(i))
	}
	if f.Swizzle == nil && v.Encoding == Im2colWide {
		v.Swizzle = Swizzle128B
	}
	return nil
}

// rank sets the rank: given, or the length of global_dim, or the encoding's
// default.
func (f legacyForm) rank(v *Value) error {
	switch {
	case f.Rank != nil:
		if err := domain.Range("rank", int64(*f.Rank), 0, 8); err != nil {
			return err
		}
		v.Rank = uint8(*f.Rank)
	case f.GlobalDim != nil:
		if len(f.GlobalDim) > MaxDims {
			return fmt.Errorf("field \"global_dim\": %d entries, at most %d", len(f.GlobalDim), MaxDims)
		}
		v.Rank = uint8(len(f.GlobalDim))
	case v.Encoding == Tiled:
		v.Rank = 2
	default:
		v.Rank = 4
	}
	return nil
}

// applicable refuses fields the encoding does not take.
func (f legacyForm) applicable(e Encoding) error {
	notFor := func(field string, given bool, ok bool, want string) error {
		if given && !ok {
			return fmt.Errorf("field %q: only for encode %s, not %q", field, want, e)
		}
		return nil
	}
	tiled, wide := e == Tiled, e == Im2colWide
	for _, c := range []error{
		notFor("box_dim", f.BoxDim != nil, tiled, `"tiled"`),
		notFor("pixel_box_lower", f.PixelBoxLower != nil, !tiled, `"im2col" or "im2col_wide"`),
		notFor("pixel_box_upper", f.PixelBoxUpper != nil, !tiled, `"im2col" or "im2col_wide"`),
		notFor("channels_per_pixel", f.ChannelsPerPixel != nil, !tiled, `"im2col" or "im2col_wide"`),
		notFor("pixels_per_column", f.PixelsPerColumn != nil, !tiled, `"im2col" or "im2col_wide"`),
		notFor("wide_mode", f.WideMode != nil, wide, `"im2col_wide"`),
	} {
		if c != nil {
			return c
		}
	}
	return nil
}

// arrays copies the given arrays, which must have exactly the rank's count
// of entries, and fills the absent ones with their defaults.
func (f legacyForm) arrays(v *Value) error {
	n := v.Dims()
	if err := legacyFill("global_dim", f.GlobalDim, v.GlobalDim[:n], DefaultGlobalDim); err != nil {
		return err
	}
	if f.GlobalStrides == nil {
		v.GlobalStrides = legacyDense(*v)
	} else if err := legacyFill("global_strides", f.GlobalStrides, v.GlobalStrides[:v.StrideCount()], 0); err != nil {
		return err
	}
	if v.Encoding == Tiled {
		if err := legacyFill("box_dim", f.BoxDim, v.BoxDim[:n], DefaultBoxDim); err != nil {
			return err
		}
	}
	if err := legacyFill("element_strides", f.ElementStrides, v.ElementStrides[:n], 1); err != nil {
		return err
	}
	c := v.CornerCount()
	if err := legacyFill("pixel_box_lower", f.PixelBoxLower, v.PixelBoxLower[:c], 0); err != nil {
		return err
	}
	return legacyFill("pixel_box_upper", f.PixelBoxUpper, v.PixelBoxUpper[:c], 0)
}

// fill copies given into dst, or def into every entry when given is absent;
// a given array of another length is an error naming the field.
func legacyFill[T any](field string, given []T, dst []T, def T) error {
	if given == nil {
		for i := range dst {
			dst[i] = def
		}
		return nil
	}
	if len(given) != len(dst) {
		return fmt.Errorf("field %q: %d entries, want %d for this rank and encode", field, len(given), len(dst))
	}
	copy(dst, given)
	return nil
}

// im2col applies the im2col counts and their defaults.
func (f legacyForm) im2col(v *Value) {
	if v.Encoding == Tiled {
		return
	}
	v.ChannelsPerPixel, v.PixelsPerColumn = DefaultChannels, DefaultPixels
	domain.Opt(f.ChannelsPerPixel, &v.ChannelsPerPixel)
	domain.Opt(f.PixelsPerColumn, &v.PixelsPerColumn)
}

// denseStrides lays the tensor out without padding beyond the driver's
// stride granule: the row bytes rounded up to 16 (32 under interleave 32B
// and for the ALIGN16B types), times each outer dimension.
func legacyDense(v Value) [MaxDims - 1]uint64 {
	var s [MaxDims - 1]uint64
	if v.StrideCount() == 0 {
		return s
	}
	granule := uint64(16)
	if v.Interleave == Interleave32B || v.DType.Align16B() {
		granule = 32
	}
	row := (v.GlobalDim[0]*v.DType.GlobalBits() + 7) / 8
	s[0] = (row + granule - 1) / granule * granule
	for i := 1; i < v.StrideCount(); i++ {
		s[i] = s[i-1] * v.GlobalDim[i]
	}
	return s
}

// The hand-written form's defaults.
const (
	DefaultGlobalDim = 256
	DefaultBoxDim    = 64
	DefaultChannels  = 64
	DefaultPixels    = 128
)

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 90}
