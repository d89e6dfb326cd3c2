package domain

import "encoding/binary"

// Reader reads fields from fuzz bytes. Reading past the end yields zeros, so
// every input, however short, decodes to some value; bytes left over are
// ignored. Domains write their canonical form with the matching Writer.
type Reader struct {
	data []byte
}

// NewReader reads from data.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

func (r *Reader) next(n int) []byte {
	var buf [8]byte
	k := copy(buf[:n], r.data)
	r.data = r.data[k:]
	return buf[:n]
}

// Len is the number of bytes not read yet: a versioned codec reads its
// trailer only when there is one.
func (r *Reader) Len() int { return len(r.data) }

// U8 reads one byte.
func (r *Reader) U8() uint8 { return r.next(1)[0] }

// U16 reads a little-endian uint16.
func (r *Reader) U16() uint16 { return binary.LittleEndian.Uint16(r.next(2)) }

// U32 reads a little-endian uint32.
func (r *Reader) U32() uint32 { return binary.LittleEndian.Uint32(r.next(4)) }

// U64 reads a little-endian uint64.
func (r *Reader) U64() uint64 { return binary.LittleEndian.Uint64(r.next(8)) }

// Bool reads one byte as its low bit.
func (r *Reader) Bool() bool { return r.U8()&1 != 0 }

// Index reads one byte as an index into n choices (n must be 1..256).
func (r *Reader) Index(n int) int { return int(r.U8()) % n }

// Writer appends fields in the Reader's layout.
type Writer struct {
	Bytes []byte
}

// U8 appends one byte.
func (w *Writer) U8(v uint8) { w.Bytes = append(w.Bytes, v) }

// U16 appends a little-endian uint16.
func (w *Writer) U16(v uint16) { w.Bytes = binary.LittleEndian.AppendUint16(w.Bytes, v) }

// U32 appends a little-endian uint32.
func (w *Writer) U32(v uint32) { w.Bytes = binary.LittleEndian.AppendUint32(w.Bytes, v) }

// U64 appends a little-endian uint64.
func (w *Writer) U64(v uint64) { w.Bytes = binary.LittleEndian.AppendUint64(w.Bytes, v) }

// Bool appends one byte, 0 or 1.
func (w *Writer) Bool(v bool) {
	if v {
		w.U8(1)
	} else {
		w.U8(0)
	}
}
