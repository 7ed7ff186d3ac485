package render

import (
	"archive/zip"
	"bufio"
	"cmp"
	"errors"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"slices"

	"github.com/klauspost/compress/flate"

	"github.com/agentstat/agentstat/internal/tempfile"
)

// orderedZip is the workbook's zip writer (excelize's ZipWriter). excelize
// writes its streamed sheets in map order, and the same report must be the
// same bytes: each part is deflated into a scratch file as it is written,
// and Close puts the parts into the package in name order, copied as they
// were deflated.
type orderedZip struct {
	out     io.Writer
	scratch *tempfile.File
	buf     *bufio.Writer // to scratch
	size    int64         // what buf took
	parts   []zipPart
	open    *zipPart // the part being written
	fw      *flate.Writer
	crc     hash.Hash32
	err     error
}

// zipPart is one part's header and where its deflated bytes lie in scratch.
type zipPart struct {
	hdr zip.FileHeader
	off int64
}

// xlsxLevel is the workbook's deflate level: level 1 rather than 6 (what
// Excel and LibreOffice write) is several times as fast, for a workbook a
// quarter larger.
const xlsxLevel = 1

func newOrderedZip(out io.Writer) *orderedZip { return &orderedZip{out: out} }

// Create starts part name; what was written before it is its previous part.
func (z *orderedZip) Create(name string) (io.Writer, error) {
	if z.err = cmp.Or(z.err, z.end()); z.err != nil {
		return nil, z.err
	}
	if z.scratch == nil {
		if z.scratch, z.err = tempfile.New("agentstat-xlsx-"); z.err != nil {
			return nil, z.err
		}
		z.buf = bufio.NewWriterSize(z.scratch, 256<<10)
		z.crc = crc32.NewIEEE()
		if z.fw, z.err = flate.NewWriter(z, xlsxLevel); z.err != nil {
			return nil, z.err
		}
	} else {
		z.fw.Reset(z)
	}
	z.crc.Reset()
	z.open = &zipPart{hdr: zip.FileHeader{Name: name, Method: zip.Deflate}, off: z.size}
	return partWriter{z}, nil
}

// Write takes the deflated bytes of the part being written.
func (z *orderedZip) Write(b []byte) (int, error) {
	n, err := z.buf.Write(b)
	z.size += int64(n)
	return n, err
}

// partWriter is what excelize writes a part's content to.
type partWriter struct{ z *orderedZip }

func (w partWriter) Write(b []byte) (int, error) {
	if w.z.err != nil {
		return 0, w.z.err
	}
	w.z.crc.Write(b)
	w.z.open.hdr.UncompressedSize64 += uint64(len(b))
	return w.z.fw.Write(b)
}

// end ends the part being written, if any.
func (z *orderedZip) end() error {
	if z.open == nil {
		return nil
	}
	if err := z.fw.Close(); err != nil {
		return err
	}
	p := z.open
	p.hdr.CRC32 = z.crc.Sum32()
	p.hdr.CompressedSize64 = uint64(z.size - p.off)
	z.parts = append(z.parts, *p)
	z.open = nil
	return nil
}

// AddFS is not used by the workbook.
func (z *orderedZip) AddFS(fs.FS) error { return errors.ErrUnsupported }

// Close writes the package: its parts in name order.
func (z *orderedZip) Close() error {
	if z.err = cmp.Or(z.err, z.end()); z.err != nil {
		return z.err
	}
	if z.buf != nil {
		if err := z.buf.Flush(); err != nil {
			return err
		}
	}
	slices.SortFunc(z.parts, func(a, b zipPart) int { return cmp.Compare(a.hdr.Name, b.hdr.Name) })
	zw := zip.NewWriter(z.out)
	for i := range z.parts {
		p := &z.parts[i]
		w, err := zw.CreateRaw(&p.hdr)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, io.NewSectionReader(z.scratch, p.off, int64(p.hdr.CompressedSize64))); err != nil {
			return err
		}
	}
	return zw.Close()
}

// discard removes the scratch file.
func (z *orderedZip) discard() {
	if z.scratch != nil {
		z.scratch.Close()
	}
}
