// Package jsonscan decodes untrusted JSON into Go structs tolerantly and
// fast, by two decoders that read the same struct tags alike.
//
// Real logs drift from their specs: ids are strings or numbers, numbers
// are quoted, a field holds an object where an array was specified. The
// value types Str, Num and Time take what they can understand and count a
// warning (Warner) for the rest, instead of failing the whole file on the
// first surprise; DecodeOptions makes go-json-experiment's reflective
// decoder do the same for every other field. A type that takes several
// JSON shapes decodes itself (Flexible).
//
// The Scanner reads a line or a small document straight from its bytes
// into the same struct, by a Plan made once per struct type from the json
// tags the reflective decoder reads, so that the two cannot disagree on a
// schema. Each member is matched to its field by name and read by the
// reader of the field's type: Str, Num, Time, bool, pointers, slices and
// maps of them, nested structs, and the flexible types, which read
// themselves with ScanFlex beside their DecodeFlex (RawFlexible). Half a
// transcript's bytes are payload text the metrics never read, which
// jsontext validates a character at a time; the scanner skips it with a
// test of eight bytes at a time, and reads a transcript about three times
// as fast as the reflective decoder (logformat's BenchmarkDecodeLineRaw).
// It accepts only what it is sure of: at any doubt (a value of an
// unexpected kind, a name written twice, a surrogate escape, deep nesting,
// a byte JSON forbids) it gives up, and the caller has the reflective
// decoder read the line or document. What it accepts, jsontext accepts
// too: differential tests and fuzz targets (in logformat, over every
// format's documents) hold the two equal. A Stream is the scanner over a
// window that slides along a document too large to hold, for the members
// whose type reads itself from it (Streamed).
//
// Plans are made by package variables and indexed once by Index, which
// the package that scans calls in its init.
//
// The scanner can go when a general JSON decoder skips unread values at
// its speed.
package jsonscan
